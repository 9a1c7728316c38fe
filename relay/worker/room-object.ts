/**
 * One Durable Object per Authority ID: the room. It accepts its clients'
 * WebSockets itself with the Hibernation API (`ctx.acceptWebSocket`; the
 * Worker only forwards the upgrade request, so no invocation lives per
 * connection) and applies its relay core's actions to them.
 *
 * Hibernation drops this object's memory while its sockets stay open, so
 * nothing lives only in memory: each socket carries the core's snapshot of it
 * as its attachment (written when it is accepted and whenever the snapshot
 * changed: an Authority's authentication, a Consumer's last-heard second,
 * signaling counters), the constructor rebuilds the core from those
 * attachments, and the authentication deadline is a storage alarm (a timer
 * would not survive) set to the earliest pending deadline. A restored
 * challenged Authority re-announces its deadline, so the alarm needs no
 * storage of its own.
 *
 * A socket refused as it connects (allowlist, caps, Authority offline) is
 * never made hibernatable: it is accepted in this request and closed at once.
 * See docs/relay-worker.md for what workerd does with a socket that never sent
 * a frame and is closed from another socket's event.
 */
import { createRelayCore, type Action, type Outcome, type RelayCore, type SocketId } from '../core/index.js';
import { describeRequest, isWebSocketUpgrade, toResponse } from './http.js';
import { closedSocketResponse, closeQuietly, stringBindings, upgradeResponse, webSocketPair, type DurableObjectState, type ServerWebSocket } from './runtime.js';

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

/** How many room instances this isolate has constructed (tests read it through the logged wake line). */
let instances = 0;

const TEXT = new TextDecoder();
const INTERNAL_ERROR = { code: 1011, reason: 'internal error' } as const;

export class RoomObject {
  readonly #ctx: DurableObjectState;
  readonly #core: RelayCore;
  readonly #instance = ++instances;
  readonly #sockets = new Map<SocketId, ServerWebSocket>();
  readonly #ids = new WeakMap<WebSocket, SocketId>();
  /** The snapshot JSON last written to each socket's attachment. */
  readonly #saved = new Map<SocketId, string>();
  /** Authentication deadlines (epoch ms) by socket. */
  readonly #deadlines = new Map<SocketId, number>();
  /** When the storage alarm is set to fire, as far as this instance set it. */
  #alarmAt: number | undefined;
  /** Signaling counters are part of the snapshots: every relayed message may change one. */
  readonly #countsSignaling: boolean;

  constructor(ctx: DurableObjectState, env: object) {
    this.#ctx = ctx;
    this.#core = createRelayCore({ env: stringBindings(env) });
    this.#countsSignaling = this.#core.policy.bridgeMode === 'signaling-only';
    this.#restore();
  }

  /** HTTP from the worker: a WebSocket upgrade for this room, or its presence query. */
  fetch(request: Request): Response {
    const described = describeRequest(request);
    if (!isWebSocketUpgrade(request)) return toResponse(this.#core.http(described));
    const decision = this.#core.upgrade(described);
    if (!decision.accept) return toResponse(decision.response);
    const id = crypto.randomUUID();
    let actions: Action[];
    try {
      actions = this.#core.open(id, decision.role, decision.authorityId);
    } catch (error) {
      console.error(`relay worker: open failed: ${error instanceof Error ? error.message : String(error)}`);
      return closedSocketResponse(INTERNAL_ERROR.code, INTERNAL_ERROR.reason);
    }
    // Refused as it connects: closed in this request, never hibernatable.
    const refusal = refusalOf(actions, id);
    if (refusal !== undefined) return closedSocketResponse(refusal.code, refusal.reason);
    const [client, server] = webSocketPair();
    try {
      this.#ctx.acceptWebSocket(server);
    } catch (error) {
      // The runtime's own cap on a Durable Object's sockets: undo the open, refuse the socket.
      console.error(`relay worker: acceptWebSocket failed: ${error instanceof Error ? error.message : String(error)}`);
      this.#apply(this.#core.closed(id));
      return closedSocketResponse(INTERNAL_ERROR.code, INTERNAL_ERROR.reason);
    }
    this.#register(id, server);
    this.#save(id);
    this.#apply(actions);
    return upgradeResponse(client);
  }

  async webSocketMessage(ws: ServerWebSocket, message: string | ArrayBuffer): Promise<void> {
    const id = this.#idOf(ws);
    if (id !== undefined) await this.#guard(id, () => this.#core.message(id, message), true);
  }

  webSocketClose(ws: ServerWebSocket, code: number): void {
    this.#peerClosed(ws);
    // The Hibernation API expects the close handshake to be completed here.
    closeQuietly(ws, code, '');
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
      void this.#guard(id, () => this.#core.timer(id), false);
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
    console.log(`relay worker: room woke (instance ${this.#instance} of this isolate), restoring ${restored.length} socket(s)`);
    for (const { id, snapshot } of restored) void this.#guard(id, () => this.#core.restore(id, snapshot), false);
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
    void this.#guard(id, () => this.#core.closed(id), false);
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
   * `fromSocket`: the event is a frame from `id`, which may change its snapshot.
   */
  #guard(id: SocketId, event: () => Outcome, fromSocket: boolean): void | Promise<void> {
    try {
      const outcome = event();
      if (Array.isArray(outcome)) return this.#settle(id, outcome, fromSocket);
      return outcome.then((actions) => this.#settle(id, actions, fromSocket)).catch((error: unknown) => this.#fail(id, error));
    } catch (error) {
      this.#fail(id, error);
    }
  }

  #settle(id: SocketId, actions: readonly Action[], fromSocket: boolean): void {
    this.#apply(actions);
    // A frame can change its sender's snapshot (an Authority's phase, a
    // Consumer's last-heard second, which keeps its place at the cap across a
    // wake); #save writes only what changed. In signaling-only mode a relayed
    // message also changes a counter of the session it goes to.
    if (fromSocket) this.#save(id);
    if (this.#countsSignaling) for (const action of actions) if (action.type === 'send' && action.socket !== id) this.#save(action.socket);
  }

  #fail(id: SocketId, error: unknown): void {
    console.error(`relay worker: socket event failed: ${error instanceof Error ? error.message : String(error)}`);
    const ws = this.#sockets.get(id);
    try {
      this.#apply(this.#core.closed(id));
    } catch {
      // The socket is closed below regardless.
    }
    this.#forget(id);
    closeSocket(ws, 1011, 'internal error');
  }

  #apply(actions: readonly Action[]): void {
    let timers = false;
    for (const action of actions) {
      switch (action.type) {
        case 'send': {
          const ws = this.#sockets.get(action.socket);
          if (ws === undefined) break;
          try {
            ws.send(typeof action.text === 'string' ? action.text : TEXT.decode(action.text));
          } catch {
            // Closing: its close event tells the core.
          }
          break;
        }
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

/** The close that refuses `id` as it connects, if the core refused it. */
function refusalOf(actions: readonly Action[], id: SocketId): { code: number; reason: string } | undefined {
  for (const action of actions) if (action.type === 'close' && action.socket === id) return action;
  return undefined;
}

/** Closes a socket the bridge is done with; its attachment is cleared so a wake does not restore it. */
function closeSocket(ws: ServerWebSocket | undefined, code: number, reason: string): void {
  if (ws === undefined) return;
  try {
    ws.serializeAttachment(null);
  } catch {
    // Already closed.
  }
  closeQuietly(ws, code, reason);
}
