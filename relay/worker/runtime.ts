/**
 * The slice of the Cloudflare Workers runtime this adapter uses, typed here so
 * the project needs no `@cloudflare/workers-types` (whose globals would clash
 * with Node's). Names follow the Workers API; only what the adapter calls.
 */

/** The server end of a `WebSocketPair`. */
export interface ServerWebSocket extends WebSocket {
  /** Handles the socket in this request's isolate (not hibernatable; `ctx.acceptWebSocket` is the alternative). */
  accept(): void;
  /** Keeps up to 2 KiB of structured-cloneable state with the socket across hibernation. */
  serializeAttachment(value: unknown): void;
  deserializeAttachment(): unknown;
}

export interface DurableObjectStorage {
  setAlarm(scheduledTime: number): Promise<void>;
  deleteAlarm(): Promise<void>;
}

/** `ctx` of a Durable Object. */
export interface DurableObjectState {
  readonly storage: DurableObjectStorage;
  acceptWebSocket(ws: WebSocket, tags?: string[]): void;
  getWebSockets(tag?: string): ServerWebSocket[];
}

export interface DurableObjectStub {
  fetch(request: Request): Promise<Response>;
}

export interface DurableObjectNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): DurableObjectStub;
}

interface WebSocketPairConstructor {
  new (): { readonly 0: WebSocket; readonly 1: WebSocket };
}

/** `new WebSocketPair()` as `[client, server]`. */
export function webSocketPair(): [client: WebSocket, server: ServerWebSocket] {
  const { WebSocketPair } = globalThis as unknown as { WebSocketPair: WebSocketPairConstructor };
  const pair = new WebSocketPair();
  return [pair[0], pair[1] as ServerWebSocket];
}

/** The `101 Switching Protocols` answer that hands `client` to the caller. */
export function upgradeResponse(client: WebSocket): Response {
  return new Response(null, { status: 101, webSocket: client } as ResponseInit);
}

/**
 * The policy variables among a worker's bindings: every string binding (vars
 * and secrets); namespaces and other objects are left out.
 */
export function stringBindings(env: object): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (typeof value === 'string') out[name] = value;
  return out;
}

/** Close codes a peer may report but an endpoint may not send. */
const UNSENDABLE_CLOSE_CODES: ReadonlySet<number> = new Set([1005, 1006, 1015]);

/** Closes `ws` with `code` (1000 for one that may not be sent); a socket already closed is left alone. */
export function closeQuietly(ws: WebSocket, code: number, reason: string): void {
  try {
    if (UNSENDABLE_CLOSE_CODES.has(code)) ws.close(1000);
    else ws.close(code, reason);
  } catch {
    // Already closed.
  }
}

/** Answers a WebSocket upgrade with a socket accepted here (not hibernatable) and closed at once: how a refused client learns why. */
export function closedSocketResponse(code: number, reason: string): Response {
  const [client, server] = webSocketPair();
  server.accept();
  closeQuietly(server, code, reason);
  return upgradeResponse(client);
}
