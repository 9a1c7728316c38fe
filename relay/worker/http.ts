/** Between the Workers `Request`/`Response` and the core's plain HTTP descriptions. */
import type { HttpRequest, HttpResponse } from '../core/index.js';

export function describeRequest(request: Request): HttpRequest {
  return { method: request.method, url: request.url, origin: request.headers.get('origin') ?? undefined };
}

export function toResponse(response: HttpResponse): Response {
  return new Response(response.body === '' ? null : response.body, { status: response.status, headers: response.headers });
}

export function isWebSocketUpgrade(request: Request): boolean {
  return request.headers.get('upgrade')?.toLowerCase() === 'websocket';
}
