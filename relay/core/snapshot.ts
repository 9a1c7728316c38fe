/**
 * Socket snapshots: what a socket's state is rebuilt from when an adapter's
 * memory was dropped while its sockets stayed open (a hibernating Durable
 * Object), and the rebuilding itself.
 */
import { isAuthorityId, isSessionIdShape } from './ids.js';
import { CLOSE } from './messages.js';
import type { RelayState } from './room-state.js';
import { close, REASON, type Action, type AuthoritySocket, type ConsumerSocket, type SocketId } from './room-types.js';

/**
 * What a socket's state can be rebuilt from (for an adapter whose memory may
 * be dropped while sockets stay open, such as a hibernating Durable Object).
 * Small, JSON-serializable. Rate buckets restart full; the memory of recently
 * ended sessions is not kept; a Consumer's last-heard time is kept to the second.
 */
export type SocketSnapshot =
  | { readonly v: 1; readonly role: 'authority'; readonly authorityId: string; readonly phase: 'challenged'; readonly nonce: string; readonly deadline: number }
  | { readonly v: 1; readonly role: 'authority'; readonly authorityId: string; readonly phase: 'active' }
  | {
      readonly v: 1;
      readonly role: 'consumer';
      readonly authorityId: string;
      readonly session: string;
      /** Signaling messages the Consumer sent. */
      readonly sent: number;
      /** Signaling messages the Authority sent to this session. */
      readonly received: number;
      /**
       * When the Consumer was last heard from, rounded down to {@link HEARD_STEP_MS}
       * so that a chatty socket's snapshot changes at most once a step. Absent
       * in snapshots written before it existed.
       */
      readonly heard?: number;
    };

/**
 * Resolution of a Consumer's last-heard time in its snapshot. A restore takes
 * the end of the step (never later than the restore): the true time is within
 * it, so a Consumer rebuilt after a wake is never idler than it was, only
 * (by at most a step) more recently heard.
 */
export const HEARD_STEP_MS = 1000;

export function snapshotOf(core: RelayState, socket: SocketId): SocketSnapshot | undefined {
  const state = core.sockets.get(socket);
  if (state === undefined) return undefined;
  if (state.role === 'consumer') {
    const heard = Math.floor(state.heard / HEARD_STEP_MS) * HEARD_STEP_MS;
    return { v: 1, role: 'consumer', authorityId: state.authorityId, session: state.session, sent: state.sent, received: state.received, heard };
  }
  if (state.phase === 'active') return { v: 1, role: 'authority', authorityId: state.authorityId, phase: 'active' };
  return { v: 1, role: 'authority', authorityId: state.authorityId, phase: 'challenged', nonce: state.nonce, deadline: state.deadline };
}

/** Rebuilds one socket; see {@link RelayCore.restore}. The caller has checked that `socket` is new. */
export function restoreSocket(core: RelayState, socket: SocketId, snapshot: unknown): Action[] {
  const out: Action[] = [];
  const snap = validSnapshot(snapshot);
  if (snap === undefined) return close(out, socket, CLOSE.INVALID, 'invalid state');
  const now = core.now();
  if (snap.role === 'consumer') {
    const room = core.room(snap.authorityId);
    const previous = room.consumers.get(snap.session);
    if (previous !== undefined) core.close(out, previous, CLOSE.INVALID, 'duplicate session');
    const consumer: ConsumerSocket = {
      role: 'consumer',
      id: socket,
      authorityId: snap.authorityId,
      session: snap.session,
      bucket: core.rates.bucket(now),
      authorityBucket: core.rates.bucket(now),
      // No saved time (a snapshot from before it was kept): counted as heard now, the conservative side.
      heard: snap.heard === undefined ? now : Math.min(now, snap.heard + HEARD_STEP_MS),
      sent: snap.sent,
      received: snap.received,
    };
    core.sockets.set(socket, consumer);
    room.consumers.set(snap.session, consumer);
    return out;
  }
  const state: AuthoritySocket = {
    role: 'authority',
    id: socket,
    authorityId: snap.authorityId,
    phase: snap.phase,
    nonce: snap.phase === 'challenged' ? snap.nonce : '',
    deadline: snap.phase === 'challenged' ? snap.deadline : 0,
    bucket: core.rates.bucket(now),
    ended: new Map(),
    held: undefined,
  };
  core.sockets.set(socket, state);
  if (snap.phase === 'challenged') {
    core.pending.add(state);
    out.push({ type: 'set_timer', socket, delayMs: Math.max(0, snap.deadline - now) });
    return out;
  }
  const room = core.room(snap.authorityId);
  const previous = room.authority;
  room.authority = state;
  if (previous !== undefined) {
    core.sockets.delete(previous.id);
    out.push({ type: 'close', socket: previous.id, code: CLOSE.REPLACED, reason: REASON.replaced });
  }
  return out;
}

const COUNT = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

function validSnapshot(value: unknown): SocketSnapshot | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const snap = value as Record<string, unknown>;
  if (snap['v'] !== 1 || !isAuthorityId(snap['authorityId'])) return undefined;
  if (snap['role'] === 'consumer') {
    const heardValid = snap['heard'] === undefined || COUNT(snap['heard']);
    return isSessionIdShape(snap['session']) && COUNT(snap['sent']) && COUNT(snap['received']) && heardValid ? (snap as SocketSnapshot) : undefined;
  }
  if (snap['role'] !== 'authority') return undefined;
  if (snap['phase'] === 'active') return snap as SocketSnapshot;
  return snap['phase'] === 'challenged' && typeof snap['nonce'] === 'string' && typeof snap['deadline'] === 'number' && Number.isFinite(snap['deadline'])
    ? (snap as SocketSnapshot)
    : undefined;
}
