/**
 * The host side of the sandbox: one worker thread (its own realm) per script
 * run, one kept warm so a launch skips the lockdown cost. A watchdog ends
 * runaway loops, resource limits end memory bombs, and the worker reports a
 * script that waits on nothing.
 */
import { Worker } from 'node:worker_threads';
import { WorkflowError, isWorkflowErrorCode } from '../errors.js';
import type { CallMessage, ErrorPayload, GlobalSpec, HostMessage, ReplayEntry, WorkerMessage } from './protocol.js';
import { sandboxWorker } from './worker-path.js';

export interface SandboxLimits {
  /** Heap ceiling of one sandbox realm. */
  readonly maxOldGenerationSizeMb: number;
  /** A worker that answers no ping for this long is stuck in a loop. */
  readonly watchdogMs: number;
  /** The RPC boundary (spec 1 "Limits": 10 MB). */
  readonly maxValueBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  maxOldGenerationSizeMb: 256,
  watchdogMs: 10_000,
  maxValueBytes: 10 * 1024 * 1024,
};

export type SandboxCall = Omit<CallMessage, 't' | 'id'>;

export interface SandboxHandlers {
  /** Performs an effect; resolves to the JSON text of its value. */
  call(call: SandboxCall): Promise<string>;
  /** The sandbox answered a call from the replay table; book it (in order). A throw fails the run. */
  replayed?(call: SandboxCall, key: string): void;
  /** Records a fire-and-forget call (phase, log) in order. A throw fails the run. */
  notify(call: SandboxCall): void;
}

export interface ScriptSpec {
  readonly program: string;
  /** Completed operations the sandbox answers itself, by journal key. */
  readonly replay?: Readonly<Record<string, ReplayEntry>>;
  /** JSON text of `args`. */
  readonly args: string;
  readonly globals: readonly GlobalSpec[];
  readonly siteGlobal: string;
}

export interface ScriptExecution {
  /** JSON text of the script's return value. */
  readonly result: Promise<string>;
  /** Ends the realm at once; `result` rejects with CANCELLED unless it already settled. */
  terminate(): Promise<void>;
}

export function errorFromPayload(payload: ErrorPayload): WorkflowError {
  if (isWorkflowErrorCode(payload.code)) return new WorkflowError(payload.code, payload.message, payload.details);
  return new WorkflowError('INTERNAL_ERROR', `Workflow script failed: ${payload.message}`, { reason: 'script_error' });
}

function payloadFromError(error: unknown): ErrorPayload {
  if (error instanceof WorkflowError) return error.details === undefined ? { code: error.code, message: error.message } : error.toJSON();
  return { code: 'INTERNAL_ERROR', message: error instanceof Error ? error.message : String(error) };
}

export class SandboxPool {
  readonly limits: SandboxLimits;
  readonly #warm: boolean;
  #spare: Promise<Worker> | undefined;
  #closed = false;

  constructor(options: { limits?: Partial<SandboxLimits>; warm?: boolean } = {}) {
    this.limits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
    this.#warm = options.warm ?? true;
    if (this.#warm) this.#spare = this.#spawn();
  }

  #spawn(): Promise<Worker> {
    const launch = sandboxWorker();
    const worker = new Worker(launch.path, {
      env: {},
      execArgv: [...launch.execArgv],
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: this.limits.maxOldGenerationSizeMb, maxYoungGenerationSizeMb: 32 },
    });
    // Lockdown may print warnings; the script itself has no console. Never let either reach our stdout.
    worker.stdout.resume();
    worker.stderr.resume();
    worker.unref();
    return new Promise((resolve, reject) => {
      const onMessage = (raw: string) => {
        if ((JSON.parse(raw) as WorkerMessage).t !== 'ready') return;
        worker.off('error', reject);
        worker.off('message', onMessage);
        resolve(worker);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
  }

  async #acquire(): Promise<Worker> {
    if (this.#closed) throw new WorkflowError('CANCELLED', 'the sandbox pool is closed');
    const worker = this.#spare ?? this.#spawn();
    this.#spare = this.#warm ? this.#spawn() : undefined;
    // A spare that failed to start must not become an unhandled rejection.
    this.#spare?.catch(() => undefined);
    return worker;
  }

  /** Starts one script in a fresh realm. */
  run(spec: ScriptSpec, handlers: SandboxHandlers): ScriptExecution {
    let terminateWorker: (() => Promise<void>) | undefined;
    let cancelled = false;
    const result = this.#acquire().then((worker) => {
      if (cancelled) {
        void worker.terminate();
        throw new WorkflowError('CANCELLED', 'the workflow script was stopped');
      }
      return this.#execute(worker, spec, handlers, (terminate) => (terminateWorker = terminate));
    });
    return {
      result,
      terminate: async () => {
        cancelled = true;
        await terminateWorker?.();
      },
    };
  }

  #execute(worker: Worker, spec: ScriptSpec, handlers: SandboxHandlers, expose: (terminate: () => Promise<void>) => void): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      let done = false;
      let lastPong = Date.now();
      const send = (message: HostMessage) => done || worker.postMessage(JSON.stringify(message));
      const finish = (error: WorkflowError | undefined, value?: string) => {
        if (done) return;
        done = true;
        clearInterval(watchdog);
        void worker.terminate();
        if (error) reject(error);
        else resolve(value ?? 'null');
      };
      const watchdog = setInterval(() => {
        if (Date.now() - lastPong > this.limits.watchdogMs) {
          finish(new WorkflowError('INTERNAL_ERROR', `The workflow script stopped responding for ${this.limits.watchdogMs} ms (runaway loop)`, { reason: 'cpu_watchdog' }));
          return;
        }
        send({ t: 'ping' });
      }, Math.max(10, Math.floor(this.limits.watchdogMs / 4)));
      expose(async () => {
        finish(new WorkflowError('CANCELLED', 'the workflow script was stopped'));
        await worker.terminate();
      });

      worker.on('message', (raw: string) => {
        const message = JSON.parse(raw) as WorkerMessage;
        lastPong = Date.now();
        switch (message.t) {
          case 'call': {
            const { t: _t, id, ...call } = message;
            handlers.call(call).then(
              (value) => send({ t: 'reply', id, ok: true, value }),
              (error: unknown) => send({ t: 'reply', id, ok: false, error: payloadFromError(error) }),
            );
            return;
          }
          case 'replayed': {
            const { t: _t, key, ...call } = message;
            try {
              handlers.replayed?.(call, key);
            } catch (error) {
              finish(errorFromPayload(payloadFromError(error)));
            }
            return;
          }
          case 'notify': {
            const { t: _t, id: _id, ...call } = message;
            try {
              handlers.notify(call);
            } catch (error) {
              finish(errorFromPayload(payloadFromError(error)));
            }
            return;
          }
          case 'done':
            return finish(undefined, message.value);
          case 'failed':
            return finish(errorFromPayload(message.error));
          case 'stalled':
            return finish(new WorkflowError('INTERNAL_ERROR', 'The workflow script is waiting on a promise that can never settle', { reason: 'never_settles' }));
          default:
            return;
        }
      });
      worker.on('error', (error: Error & { code?: string }) => {
        const memory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
        finish(
          new WorkflowError('INTERNAL_ERROR', memory ? `The workflow script exceeded its ${this.limits.maxOldGenerationSizeMb} MB memory limit` : `The sandbox failed: ${error.message}`, {
            reason: memory ? 'memory_limit' : 'sandbox_error',
          }),
        );
      });
      worker.on('exit', () => finish(new WorkflowError('INTERNAL_ERROR', 'The sandbox exited unexpectedly', { reason: 'sandbox_error' })));
      worker.ref();
      send({
        t: 'start',
        program: spec.program,
        args: spec.args,
        globals: spec.globals,
        maxValueBytes: this.limits.maxValueBytes,
        siteGlobal: spec.siteGlobal,
        replay: spec.replay ?? {},
      });
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const spare = this.#spare;
    this.#spare = undefined;
    if (spare) await spare.then((worker) => worker.terminate(), () => undefined);
  }
}
