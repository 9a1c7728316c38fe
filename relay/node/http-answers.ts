/**
 * Answers the Node bridge writes on a connection itself, outside Node's HTTP
 * response machinery: refusals of an upgrade request, and the answers to a
 * connection accepted over capacity (`connections.ts`).
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { CLOSE, type HttpResponse } from '../core/index.js';
import { endSoon } from './connections.js';

/** The answer to a plain request over capacity (spec 3: a cap exceeded). */
export const OVER_CAPACITY: HttpResponse = {
  status: 503,
  headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1', connection: 'close' },
  body: '{"error":"over_capacity"}',
};

/** An upgrade over capacity: accepted only to be closed with 4429 (as the core refuses a socket over `MAX_CONNECTIONS`), not awaiting the peer. */
export function refuseOverCapacity(wss: WebSocketServer, req: IncomingMessage, socket: Socket, head: Buffer): void {
  wss.handleUpgrade(req, socket, head, (ws) => {
    ws.on('error', () => {});
    ws.close(CLOSE.RATE_LIMITED, 'too many connections');
    endSoon(socket);
  });
}

export function rejectUpgrade(socket: Duplex, response: HttpResponse): void {
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`, 'connection: close'];
  for (const [name, value] of Object.entries(response.headers)) lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${Buffer.byteLength(response.body)}`);
  socket.end(`${lines.join('\r\n')}\r\n\r\n${response.body}`);
}
