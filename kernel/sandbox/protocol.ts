/**
 * Messages between the host and the sandbox process: one JSON text per line
 * (stdin for the host's messages, stdout for the sandbox's). Script values
 * travel inside them as JSON the sandbox encoded itself (kernel/json-encode.ts),
 * so every value that crosses is plain JSON within the size and depth limits.
 */
import type { JsonValue } from '../json.js';
import type { PromptSyntax } from '../template.js';

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

export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

export interface ErrorPayload {
  readonly code?: string;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
  /** Where in the evaluated program the script's innermost frame was when it threw (1-based), when it was in the script. */
  readonly at?: SourcePosition;
}

/**
 * A journaled operation the sandbox may answer. Entries with a `seq` are
 * delivered to the script in `seq` order, the order in which the original
 * run received them (a delivery waits until the script has called it and
 * every earlier entry was delivered). Entries without one (older journals,
 * a retried run's ancestors) are answered as soon as they are called.
 */
export interface ReplayEntry {
  readonly key: string;
  /** The operation that must be asking (`agent` also answers handle sends of old journals). */
  readonly op: string;
  readonly seq?: number;
  /** The host answers this entry (a check of its own runs on replay); the sandbox only orders it. */
  readonly host?: true;
  readonly ok: boolean;
  readonly value?: JsonValue;
  readonly error?: ErrorPayload;
  /** A short preview of the journaled call, for the non-determinism error. */
  readonly call?: string;
}

export interface StartMessage {
  readonly t: 'start';
  /** The preflight's program: an expression for the promise of the workflow result. */
  readonly program: string;
  /** The parameter name the program calls before each call site (the preflight's marker). */
  readonly marker: string;
  /** Every call site of the program: id (`line:column`) → callee (`agent`, `send`, `tools.read` ...). */
  readonly sites: Readonly<Record<string, string>>;
  readonly args: JsonValue;
  readonly globals: readonly GlobalSpec[];
  /** `prompt`'s template syntax (kernel/template.ts): `legacy` for runs of script language 1. */
  readonly promptSyntax: PromptSyntax;
  readonly maxValueBytes: number;
  readonly replay: readonly ReplayEntry[];
}

export interface ReplyMessage {
  readonly t: 'reply';
  readonly id: number;
  readonly ok: boolean;
  readonly value?: JsonValue;
  readonly error?: ErrorPayload;
  /** The delivery position the host journaled this result under; replies are delivered in this order. */
  readonly seq?: number;
}

export type HostMessage = StartMessage | ReplyMessage | { readonly t: 'ping' };

/** What the host answers to a call: JSON text of the value, or an error; `seq` when it was journaled. */
export interface CallOutcome {
  readonly ok: boolean;
  readonly value?: string;
  readonly error?: ErrorPayload;
  readonly seq?: number;
  /** Journals the result. Called right after the reply is written, before the next message of the sandbox is handled; a throw fails the run. */
  readonly commit?: () => void;
}

/** The reply line, with the value's JSON text embedded as it is (it was encoded once, by the handler). */
export function replyLine(id: number, outcome: CallOutcome): string {
  const seq = outcome.seq === undefined ? '' : `,"seq":${outcome.seq}`;
  if (outcome.ok) return `{"t":"reply","id":${id},"ok":true${seq},"value":${outcome.value ?? 'null'}}`;
  return `{"t":"reply","id":${id},"ok":false${seq},"error":${JSON.stringify(outcome.error ?? { message: 'failed' })}}`;
}

export interface CallMessage {
  readonly t: 'call';
  readonly id: number;
  /** Primitive name, `<namespace>.<member>`, `agent`, `agent.send`, a registered function name. */
  readonly op: string;
  readonly site: string;
  readonly scope: readonly string[];
  /** The journal key the sandbox gave the call (the host checks its shape and uniqueness). */
  readonly key: string;
  readonly args: readonly JsonValue[];
}

/** The sandbox answers a call from the journal; the host checks it (digest) and does its bookkeeping, in order. */
export interface ReplayedMessage {
  readonly t: 'replayed';
  readonly op: string;
  readonly site: string;
  readonly scope: readonly string[];
  readonly key: string;
  readonly args: readonly JsonValue[];
  /** The journaled outcome is a failure. */
  readonly failed?: true;
}

export interface NotifyMessage {
  readonly t: 'notify';
  readonly op: string;
  readonly site: string;
  readonly scope: readonly string[];
  readonly args: readonly JsonValue[];
}

export type WorkerMessage =
  | CallMessage
  | ReplayedMessage
  | NotifyMessage
  | { readonly t: 'ready' }
  | { readonly t: 'pong' }
  | { readonly t: 'done'; readonly value: JsonValue }
  | { readonly t: 'failed'; readonly error: ErrorPayload }
  | { readonly t: 'stalled' };

const SCOPE = { type: 'array', items: { type: 'string' }, maxItems: 10_000 } as const;
const ERROR = {
  type: 'object',
  required: ['message'],
  properties: {
    code: { type: 'string' },
    message: { type: 'string' },
    details: { type: 'object' },
    at: {
      type: 'object',
      required: ['line', 'column'],
      additionalProperties: false,
      properties: { line: { type: 'integer', minimum: 1 }, column: { type: 'integer', minimum: 1 } },
    },
  },
} as const;
const CALL_FIELDS = { op: { type: 'string', minLength: 1 }, site: { type: 'string' }, scope: SCOPE, key: { type: 'string', minLength: 1 }, args: { type: 'array' } } as const;

/**
 * What the host accepts from the sandbox process (validated with ajv: the
 * process runs hostile scripts). Compile with `discriminator: true`: the tag
 * `t` picks the one branch to check.
 */
export const WORKER_MESSAGE_SCHEMA = {
  type: 'object',
  required: ['t'],
  properties: { t: { type: 'string' } },
  discriminator: { propertyName: 't' },
  oneOf: [
    { required: ['t', 'id', 'op', 'site', 'scope', 'key', 'args'], properties: { t: { const: 'call' }, id: { type: 'integer', minimum: 1 }, ...CALL_FIELDS } },
    { required: ['t', 'op', 'site', 'scope', 'key', 'args'], properties: { t: { const: 'replayed' }, ...CALL_FIELDS, failed: { const: true } } },
    { required: ['t', 'op', 'site', 'scope', 'args'], properties: { t: { const: 'notify' }, op: CALL_FIELDS.op, site: CALL_FIELDS.site, scope: SCOPE, args: CALL_FIELDS.args } },
    { properties: { t: { const: 'ready' } } },
    { properties: { t: { const: 'pong' } } },
    { properties: { t: { const: 'stalled' } } },
    { required: ['t', 'value'], properties: { t: { const: 'done' }, value: {} } },
    { required: ['t', 'error'], properties: { t: { const: 'failed' }, error: ERROR } },
  ],
} as const;
