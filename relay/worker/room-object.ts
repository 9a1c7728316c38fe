/**
 * One Durable Object per Authority ID: the room. It owns a relay core for this
 * one room and applies the core's actions to hibernatable WebSockets.
 *
 * Hibernation drops this object's memory while its sockets stay open, so
 * nothing lives only in memory: each socket carries the core's snapshot of it
 * as its attachment (rewritten whenever the snapshot changes), the constructor
 * rebuilds the core from those attachments, and the authentication deadline
 * is a storage alarm (a timer would not survive) set to the earliest pending
 * deadline. A restored challenged Authority re-announces its deadline, so the
 * alarm needs no storage of its own.
 */
import { createRelayCore, type Action, type Outcome, type RelayCore, type SocketId } from '../core/index.js';
import { UNSENDABLE_CLOSE_CODES } from './bridge.js';
import { describeRequest, isWebSocketUpgrade, toResponse } from './http.js';
import { stringBindings, upgradeResponse, webSocketPair, type DurableObjectState, type ServerWebSocket } from './runtime.js';

/** A socket's attachment: its core socket ID and the core's snapshot; `null` once the bridge closed it. */
interface Attachment {
  readonly id: SocketId;
  readonly snapshot: unknown;
}

function readAttachment(ws: ServerWebSocket): Attachment | undefined {
  try {
    const value = ws.deserializeAttachment() as Partial<Attachment> | null;
    return typeof value?.id === 'string' && value.snapshot !== undefined && value.snapshot !== null ? (value as Attachment) : undefined;
  } catch {
    return undefined;
  }
}

export class RoomObject {
  readonly #ctx: DurableObjectState;
  readonly #core: RelayCore;
  readonly #sockets = new Map<SocketId, ServerWebSocket>();
  readonly #ids = new WeakMap<WebSocket, SocketId>();
  /** The snapshot JSON last written to each socket's attachment. */
  readonly #saved = new Map<SocketId, string>();
  /** Authentication deadlines (epoch ms) by socket. */
  readonly #deadlines = new Map<SocketId, number>();
  /** When the storage alarm is set to fire, as far as this instance set it. */
  #alarmAt: number | undefined;

  constructor(ctx: DurableObjectState, env: object) {
    this.#ctx = ctx;
    this.#core = createRelayCore({ env: stringBindings(env) });
    this.#restore();
  }

  /** HTTP from the worker: a WebSocket upgrade for this room, or its presence query. */
  fetch(request: Request): Response {
    const described = describeRequest(request);
    if (!isWebSocketUpgrade(request)) return toResponse(this.#core.http(described));
    const decision = this.#core.upgrade(described);
    if (!decision.accept) return toResponse(decision.response);
    const [client, server] = webSocketPair();
    this.#ctx.acceptWebSocket(server);
    const id = crypto.randomUUID();
    this.#register(id, server);
    this.#guard(id, () => this.#core.open(id, decision.role, decision.authorityId));
    return upgradeResponse(client);
  }

  async webSocketMessage(ws: ServerWebSocket, message: string | ArrayBuffer): Promise<void> {
    const id = this.#idOf(ws);
    if (id !== undefined) await this.#guard(id, () => this.#core.message(id, message));
  }

  webSocketClose(ws: ServerWebSocket, code: number): void {
    this.#peerClosed(ws);
    try {
      // The Hibernation API expects the close handshake to be completed here.
      ws.close(UNSENDABLE_CLOSE_CODES.has(code) ? 1000 : code);
    } catch {
      // Already closed.
    }
  }

  webSocketError(ws: ServerWebSocket): void {
    this.#peerClosed(ws);
  }

  /** The earliest authentication deadline passed (or a stale alarm fired). */
  alarm(): void {
    this.#alarmAt = undefined;
    const now = Date.now();
    for (const [id, deadline] of this.#deadlines) {
      if (deadline > now) continue;
      this.#deadlines.delete(id);
      this.#guard(id, () => this.#core.timer(id));
    }
    this.#schedule();
  }

  // ---- state -------------------------------------------------------------

  /** Rebuilds the core from the sockets' attachments after waking (all sockets first: a restore may close another). */
  #restore(): void {
    const restored: Attachment[] = [];
    for (const ws of this.#ctx.getWebSockets()) {
      const attachment = readAttachment(ws);
      if (attachment === undefined) continue;
      this.#register(attachment.id, ws);
      this.#saved.set(attachment.id, JSON.stringify(attachment.snapshot));
      restored.push(attachment);
    }
    if (restored.length === 0) return;
    console.log(`relay worker: room woke, restoring ${restored.length} socket(s)`);
    for (const { id, snapshot } of restored) this.#guard(id, () => this.#core.restore(id, snapshot));
  }

  #register(id: SocketId, ws: ServerWebSocket): void {
    this.#sockets.set(id, ws);
    this.#ids.set(ws, id);
  }

  #idOf(ws: ServerWebSocket): SocketId | undefined {
    const known = this.#ids.get(ws);
    if (known !== undefined) return known;
    const id = readAttachment(ws)?.id;
    if (id !== undefined && this.#sockets.has(id)) this.#register(id, ws);
    return id;
  }

  #peerClosed(ws: ServerWebSocket): void {
    const id = this.#idOf(ws);
    if (id === undefined) return;
    this.#guard(id, () => this.#core.closed(id));
    this.#forget(id);
  }

  #forget(id: SocketId): void {
    this.#sockets.delete(id);
    this.#saved.delete(id);
  }

  // ---- applying the core's decisions ----------------------------------------

  /**
   * Runs one core event for `id` and applies its actions. The core decodes
   * defensively and does not throw; should this adapter fail anyway, only the
   * socket in question is closed (1011), never the object with its room.
   */
  #guard(id: SocketId, event: () => Outcome): void | Promise<void> {
    try {
      const outcome = event();
      if (Array.isArray(outcome)) return this.#apply(outcome, id);
      return outcome.then((actions) => this.#apply(actions, id)).catch((error: unknown) => this.#fail(id, error));
    } catch (error) {
      this.#fail(id, error);
    }
  }

  #fail(id: SocketId, error: unknown): void {
    console.error(`relay worker: socket event failed: ${error instanceof Error ? error.message : String(error)}`);
    const ws = this.#sockets.get(id);
    try {
      this.#apply(this.#core.closed(id), id);
    } catch {
      // The socket is closed below regardless.
    }
    this.#forget(id);
    closeSocket(ws, 1011, 'internal error');
  }

  #apply(actions: readonly Action[], event: SocketId): void {
    let timers = false;
    const touched = new Set<SocketId>([event]);
    for (const action of actions) {
      switch (action.type) {
        case 'send':
          touched.add(action.socket);
          try {
            this.#sockets.get(action.socket)?.send(action.text);
          } catch {
            // Closing: its close event tells the core.
          }
          break;
        case 'close': {
          const ws = this.#sockets.get(action.socket);
          this.#forget(action.socket);
          closeSocket(ws, action.code, action.reason);
          break;
        }
        case 'set_timer':
          this.#deadlines.set(action.socket, Date.now() + action.delayMs);
          timers = true;
          break;
        case 'clear_timer':
          timers = this.#deadlines.delete(action.socket) || timers;
          break;
      }
    }
    for (const id of touched) this.#save(id);
    if (timers) this.#schedule();
  }

  /** Rewrites a socket's attachment when the core's snapshot of it changed. */
  #save(id: SocketId): void {
    const ws = this.#sockets.get(id);
    const snapshot = ws === undefined ? undefined : this.#core.snapshot(id);
    if (ws === undefined || snapshot === undefined) return;
    const json = JSON.stringify(snapshot);
    if (this.#saved.get(id) === json) return;
    this.#saved.set(id, json);
    try {
      ws.serializeAttachment({ id, snapshot } satisfies Attachment);
    } catch {
      // Closing: nothing left to keep.
    }
  }

  /** Points the storage alarm at the earliest deadline (or removes it). */
  #schedule(): void {
    let next = Infinity;
    for (const deadline of this.#deadlines.values()) next = Math.min(next, deadline);
    const at = next === Infinity ? undefined : next;
    if (at === this.#alarmAt) return;
    this.#alarmAt = at;
    const report = (error: unknown): void => console.error(`relay worker: alarm update failed: ${String(error)}`);
    if (at === undefined) this.#ctx.storage.deleteAlarm().catch(report);
    else this.#ctx.storage.setAlarm(at).catch(report);
  }
}

/** Closes a socket the bridge is done with; its attachment is cleared so a wake does not restore it. */
function closeSocket(ws: ServerWebSocket | undefined, code: number, reason: string): void {
  if (ws === undefined) return;
  try {
    ws.serializeAttachment(null);
    ws.close(code, reason);
  } catch {
    // Already closed.
  }
}
