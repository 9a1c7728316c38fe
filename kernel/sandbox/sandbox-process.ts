/**
 * One sandbox process: it runs one script under SES lockdown. A V8 fatal
 * out-of-memory, a native crash or an endless loop ends this process only.
 * Messages from it are validated (it runs hostile scripts) and handled one
 * per macrotask, in order, so each handler's promise reactions finish before
 * the next message is looked at.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { WorkflowError } from '../errors.js';
import type { JsonValue } from '../json.js';
import { encodeJson } from '../json-encode.js';
import { validate as compiledWorkerMessage } from '../compiled-schemas/worker-message.js';
import type { PrecompiledValidator } from '../precompiled.js';
import type { PromptSyntax } from '../template.js';
import { LineReader } from './lines.js';
import { scriptFailure, type Locate } from './script-failure.js';
import { sandboxLaunch } from './launch.js';
import { MAX_CODE_CACHE_BYTES, sandboxCodeCache, type SandboxCodeCache } from './code-cache.js';
import type { CallMessage, CallOutcome, ErrorPayload, GlobalSpec, HostMessage, ReplayEntry, WorkerMessage } from './protocol.js';

export type { CallOutcome };

export interface SandboxLimits {
  /** V8 heap ceiling of one sandbox process. */
  readonly maxOldGenerationSizeMb: number;
  /** Resident memory ceiling of one sandbox process (ArrayBuffers live outside the heap). */
  readonly maxRssMb: number;
  /** CPU time a script may spend without yielding before it counts as a runaway loop. */
  readonly watchdogMs: number;
  /** The RPC boundary (spec 1 "Limits": 10 MB). */
  readonly maxValueBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  maxOldGenerationSizeMb: 256,
  maxRssMb: 1024,
  watchdogMs: 10_000,
  maxValueBytes: 10 * 1024 * 1024,
};

export type SandboxCall = Omit<CallMessage, 't' | 'id'>;


export interface SandboxHandlers {
  /** Performs an effect; never rejects. */
  call(call: SandboxCall): Promise<CallOutcome>;
  /** The sandbox answered a call from the journal; check and book it, in order. A throw fails the run at once. */
  replayed(call: SandboxCall & { readonly failed: boolean }): void;
  /** Records a fire-and-forget call (phase, log, agent.create) in order. A throw fails the run at once. */
  notify(call: Omit<SandboxCall, 'key'>): void;
}

export interface ScriptSpec {
  readonly program: string;
  /** The preflight's call sites: id → callee. */
  readonly sites: Readonly<Record<string, string>>;
  readonly marker: string;
  /** Completed operations the sandbox answers or orders. */
  readonly replay?: readonly ReplayEntry[];
  readonly args: JsonValue;
  readonly globals: readonly GlobalSpec[];
  /** `prompt`'s template syntax; default `braces` (script language 2). */
  readonly promptSyntax?: PromptSyntax;
  /** Maps a program position to the script's line and column (the preflight's `locate`). */
  readonly locate?: Locate;
}

export interface ScriptExecution {
  /** The script's return value (plain JSON). */
  readonly result: Promise<JsonValue>;
  /** Ends the process at once; `result` rejects with CANCELLED unless it already settled. */
  terminate(): Promise<void>;
}

export function errorFromPayload(payload: ErrorPayload, locate?: Locate): WorkflowError {
  return scriptFailure(payload, locate);
}

// Build-time compiled from WORKER_MESSAGE_SCHEMA (kernel/compiled-schemas/worker-message.ts).
const validateMessage = compiledWorkerMessage as unknown as PrecompiledValidator<WorkerMessage>;
/** Messages waiting for their macrotask before the process's output is paused. */
const QUEUE_HIGH = 256;
const STDERR_KEPT = 8 * 1024;

type SandboxChild = ChildProcessByStdio<Writable, Readable, Readable>;

/** Sandbox processes alive in this host, killed if the host exits first. */
const live = new Set<SandboxChild>();
let exitHook = false;

function track(child: SandboxChild): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const alive of live) alive.kill('SIGKILL');
    });
  }
}

/**
 * Kills the sandbox processes still alive and resolves once each has
 * exited, so a host that ends at once (`wfcli`, cli/wfcli.ts) leaves none
 * behind for the system to reap, nor their CPU time out of its own.
 */
export async function endSandboxes(): Promise<void> {
  await Promise.all(
    [...live].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** One started sandbox process, waiting for its script. */
export class SandboxProcess {
  readonly child: SandboxChild;
  readonly ready: Promise<void>;
  #stderr = '';
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #readied: () => void = () => undefined;
  #onMessage: (message: WorkerMessage) => void = () => undefined;
  #onExit: () => void = () => undefined;
  #onBroken: (why: string) => void = () => undefined;
  readonly #queue: WorkerMessage[] = [];
  #draining = false;
  #paused = false;
  #killed = false;
  #scriptSent = false;

  /** `codeCacheRoot`: the store whose sandbox code cache this process uses and fills (code-cache.ts). */
  constructor(limits: SandboxLimits, codeCacheRoot?: string) {
    const launch = sandboxLaunch(limits.maxOldGenerationSizeMb);
    const cache = codeCacheRoot === undefined ? undefined : sandboxCodeCache(codeCacheRoot, launch);
    const args = cache === undefined ? launch.args : [...launch.args, '--code-cache'];
    this.child = spawn(launch.command, args, { env: {}, stdio: cache === undefined ? ['pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe', 'pipe', 'pipe'] }) as SandboxChild;
    track(this.child);
    this.child.stdin.on('error', () => undefined);
    const cacheSent = cache === undefined ? undefined : this.#exchangeCode(cache);
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_KEPT);
    });
    // A call carries at most one value of the RPC limit, with a little room for its fields.
    const reader = new LineReader(
      limits.maxValueBytes + 256 * 1024,
      (line) => this.#line(line),
      () => this.#onBroken('a message of the sandbox process exceeds the RPC limit'),
    );
    this.child.stdout.on('data', (chunk: Buffer) => reader.push(chunk));
    const answered = new Promise<void>((resolve, reject) => {
      this.#readied = resolve;
      const failed = (why: string) => reject(new WorkflowError('INTERNAL_ERROR', `The sandbox process could not start: ${why}`, { reason: 'sandbox_error' }));
      this.child.once('error', (error) => failed(error.message));
      this.child.once('exit', () => failed(this.describeExit()));
    });
    // With a code cache, ready also waits for the cache's pipe to close: no script is sent while it is open. The
    // bytes are kept only once the process also answered (it closes the pipe first), so they are whole; this runs
    // before any other reaction to ready, so before a script is sent.
    this.ready =
      cacheSent === undefined
        ? answered
        : Promise.all([answered, cacheSent.closed]).then(([, fresh]) => {
            if (fresh !== undefined && !this.#scriptSent && cache !== undefined) cache.write(fresh);
          });
    this.ready.catch(() => undefined);
    if (cacheSent !== undefined) {
      // Died on its own before it was ready, with cached code: the cache may be why, so it goes.
      answered.catch(() => {
        if (cacheSent.used && !this.#killed && cache !== undefined) cache.discard();
      });
    }
    this.child.once('exit', (code, signal) => {
      this.#exit = { code, signal };
      this.#onExit();
    });
    this.setRef(false);
  }

  get exited(): boolean {
    return this.#exit !== undefined || this.child.exitCode !== null || this.child.signalCode !== null;
  }

  get stderr(): string {
    return this.#stderr;
  }

  describeExit(): string {
    const exit = this.#exit ?? { code: this.child.exitCode, signal: this.child.signalCode };
    // Node's own crash report ends in a stack and a version line: its error line and code say more.
    const lines = this.#stderr.trim().split('\n');
    const named = lines.filter((line) => /^\w*Error\b|^\s+(code|resource):/.test(line)).slice(0, 3);
    const tail = (named.length > 0 ? named : lines.slice(-3)).map((line) => line.trim()).join(' | ');
    return `${exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`}${tail ? `: ${tail}` : ''}`;
  }

  /** A waiting spare must not keep the host alive. */
  setRef(ref: boolean): void {
    for (const handle of [this.child, ...this.child.stdio] as ({ ref?: () => void; unref?: () => void } | null)[]) {
      if (handle === null) continue;
      if (ref) handle.ref?.();
      else handle.unref?.();
    }
  }

  attach(handlers: { message(message: WorkerMessage): void; exit(): void; broken(why: string): void }): void {
    this.#onMessage = handlers.message;
    this.#onExit = handlers.exit;
    this.#onBroken = handlers.broken;
    if (this.exited) handlers.exit();
  }

  send(message: HostMessage | string): void {
    if (this.exited) return;
    if (typeof message !== 'string' && message.t === 'start') this.#scriptSent = true;
    this.child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  }

  kill(): void {
    this.#killed = true;
    if (!this.exited) this.child.kill('SIGKILL');
  }

  /** Sends the cached code (fd 3); collects what the process sends back (fd 4), within MAX_CODE_CACHE_BYTES. */
  #exchangeCode(cache: SandboxCodeCache): { readonly used: boolean; readonly closed: Promise<Buffer | undefined> } {
    const input = this.child.stdio[3] as Writable;
    const output = this.child.stdio[4] as Readable;
    input.on('error', () => undefined);
    output.on('error', () => undefined);
    const payload = cache.read();
    input.end(payload ?? Buffer.alloc(0));
    const chunks: Buffer[] = [];
    let size = 0;
    output.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_CODE_CACHE_BYTES) chunks.push(chunk);
    });
    const closed = new Promise<Buffer | undefined>((resolve) => {
      output.once('close', () => resolve(size > 0 && size <= MAX_CODE_CACHE_BYTES ? Buffer.concat(chunks, size) : undefined));
    });
    return { used: payload !== undefined, closed };
  }

  /** Settles once the process is gone. */
  gone(): Promise<void> {
    if (this.exited) return Promise.resolve();
    // Waiting for the exit must keep the host's event loop alive (a spare is unreferenced).
    this.child.ref();
    return new Promise((resolve) => this.child.once('exit', () => resolve()));
  }

  #line(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return this.#onBroken('the sandbox process sent a message that is not JSON');
    }
    if (!validateMessage(message)) return this.#onBroken('the sandbox process sent a message of an unknown shape');
    const typed = message as WorkerMessage;
    // The sandbox refuses lone surrogates in values before they cross; a surrogate escape is rare, so this second check costs nothing else.
    if (SURROGATE_ESCAPE.test(line) && !wellFormedValues(typed)) return this.#onBroken('the sandbox process sent a value that is not well-formed Unicode text');
    // Pongs prove liveness the moment they are read, ahead of queued work.
    if (typed.t === 'ready') return this.#readied();
    if (typed.t === 'pong') return this.#onMessage(typed);
    this.#queue.push(typed);
    if (this.#queue.length > QUEUE_HIGH && !this.#paused) {
      this.#paused = true;
      this.child.stdout.pause();
    }
    // Nothing handled in this macrotask yet: the head goes now (no wait on the answer path), the rest one per macrotask.
    if (!this.#draining) this.#handleNext();
  }

  #handleNext(): void {
    const message = this.#queue.shift();
    if (message === undefined) return;
    if (this.#paused && this.#queue.length < QUEUE_HIGH / 2) {
      this.#paused = false;
      this.child.stdout.resume();
    }
    this.#draining = true;
    setImmediate(() => {
      this.#draining = false;
      this.#handleNext();
    });
    this.#onMessage(message);
  }
}

/** A `\uD800`–`\uDFFF` escape: how JSON text carries a surrogate that UTF-8 cannot. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Whether the values a message carries (arguments, the result) hold only well-formed strings. */
export function wellFormedValues(message: WorkerMessage): boolean {
  const values = message.t === 'call' || message.t === 'replayed' || message.t === 'notify' ? message.args : message.t === 'done' ? message.value : undefined;
  return values === undefined || encodeJson(values, { maxBytes: Number.MAX_SAFE_INTEGER, wellFormed: true }).ok;
}

export function payloadFromError(error: unknown): ErrorPayload {
  if (error instanceof WorkflowError) return error.toJSON();
  return { code: 'INTERNAL_ERROR', message: error instanceof Error ? error.message : String(error) };
}
