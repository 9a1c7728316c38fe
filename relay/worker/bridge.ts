/**
 * The client's WebSocket ends in the worker, which relays frames and closes
 * to and from the room's hibernatable socket.
 *
 * Why not hand the room's socket straight to the client (`return
 * room.fetch(request)`): workerd (1.20260730, all compatibility dates tried)
 * does not finish the TCP close of a hibernatable socket that the room closes
 * from another socket's event or from an alarm, unless that socket has itself
 * delivered a message before; the connection stays open until the object
 * hibernates (about 10 s idle). Clients see the close frame at once but no
 * `close` event, so a silent Consumer evicted with 4404 or a silent Authority
 * timed out with 4408 would hang. A socket the worker accepted closes
 * normally, so the worker terminates the client's socket and the room keeps
 * hibernating behind it. Frames pass through unparsed; the room decides
 * everything.
 */
import { upgradeResponse, webSocketPair, type ServerWebSocket } from './runtime.js';

/** Close codes a peer may report but an endpoint may not send. */
export const UNSENDABLE_CLOSE_CODES: ReadonlySet<number> = new Set([1005, 1006, 1015]);

function closeQuietly(ws: WebSocket, code: number, reason: string): void {
  try {
    if (UNSENDABLE_CLOSE_CODES.has(code)) ws.close(1000);
    else ws.close(code, reason);
  } catch {
    // Already closed.
  }
}

function forward(to: WebSocket, data: unknown): void {
  try {
    to.send(data as string | ArrayBuffer);
  } catch {
    // Closing: its close event follows.
  }
}

/** Joins two accepted sockets: every frame and the close (code and reason) crosses over. */
function join(a: ServerWebSocket, b: ServerWebSocket): void {
  for (const [from, to] of [
    [a, b],
    [b, a],
  ] as const) {
    from.addEventListener('message', (event) => forward(to, event.data));
    from.addEventListener('close', (event) => closeQuietly(to, event.code, event.reason));
    from.addEventListener('error', () => closeQuietly(to, 1011, 'peer error'));
  }
}

/** Answers an upgrade with a socket of the worker's own, joined to the room's socket in `roomResponse`. */
export function bridgeToRoom(roomResponse: Response): Response {
  const room = (roomResponse as Response & { webSocket?: ServerWebSocket | null }).webSocket;
  if (roomResponse.status !== 101 || room === undefined || room === null) return roomResponse;
  const [client, server] = webSocketPair();
  room.accept();
  server.accept();
  join(server, room);
  return upgradeResponse(client);
}
