/**
 * Messages between the host and the sandbox worker. Every message crosses as
 * one JSON string, and every script value inside it is itself a JSON string:
 * that enforces JSON-only values and makes the size check a length check.
 */

/** How the sandbox exposes one global to the script. */
export type GlobalKind =
  /** `name(...args)` returns a promise; the host performs it. */
  | 'effect'
  /** A registered function: an effect whose journal key is `fn:<name>` and its call count in the scope. */
  | 'function'
  /** `name(...args)` returns nothing; the host records it in order. */
  | 'notify'
  /** `name(label, callback)`: the host opens a scope, the callback runs inside it. */
  | 'scope'
  /** `name.member(...args)`: effect per member; probing with `in` throws. */
  | 'namespace'
  /** `agent(...)`, `agent.create(...)`, `handle.send(...)`. */
  | 'agent';

export interface GlobalSpec {
  readonly name: string;
  readonly kind: GlobalKind;
}

export interface ErrorPayload {
  readonly code?: string;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

export interface StartMessage {
  readonly t: 'start';
  readonly program: string;
  /** JSON text of the frozen `args` global. */
  readonly args: string;
  readonly globals: readonly GlobalSpec[];
  readonly maxValueBytes: number;
  /** Name of the global that receives call sites (the preflight's marker). */
  readonly siteGlobal: string;
  /**
   * Completed operations the sandbox may answer itself, by journal key: `op`
   * is the operation that must be asking (`agent` also answers handle sends),
   * `value` the recorded JSON text.
   */
  readonly replay: Readonly<Record<string, ReplayEntry>>;
}

export interface ReplayEntry {
  readonly op: string;
  readonly value: string;
}

export interface ReplyMessage {
  readonly t: 'reply';
  readonly id: number;
  readonly ok: boolean;
  /** JSON text of the value when ok. */
  readonly value?: string;
  readonly error?: ErrorPayload;
}

export type HostMessage = StartMessage | ReplyMessage | { readonly t: 'ping' };

export interface CallMessage {
  readonly t: 'call' | 'notify';
  readonly id: number;
  /** Primitive name, `<namespace>.<member>`, `agent.create`, `agent.send`. */
  readonly op: string;
  readonly site: string;
  readonly scope: readonly string[];
  /** JSON text of the argument array. */
  readonly args: string;
}

/** The sandbox answered a call from `replay`; the host checks the key and does its bookkeeping, in order. */
export interface ReplayedMessage {
  readonly t: 'replayed';
  readonly key: string;
  readonly op: string;
  readonly site: string;
  readonly scope: readonly string[];
  readonly args: string;
}

export type WorkerMessage =
  | CallMessage
  | ReplayedMessage
  | { readonly t: 'ready' }
  | { readonly t: 'pong' }
  | { readonly t: 'done'; readonly value: string }
  | { readonly t: 'failed'; readonly error: ErrorPayload }
  | { readonly t: 'stalled' };
