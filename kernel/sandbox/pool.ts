/**
 * The host side of the sandbox: one sandbox process per script run
 * (sandbox-process.ts), one kept warm so a launch skips the process start and
 * the lockdown (unless the process turned spares off: spares.ts). A process
 * that dies takes only its run with it: the run fails with a typed error and
 * the host and every other run go on.
 */
import { WorkflowError } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { Locate } from './script-failure.js';
import { Monitor, type Runaway } from './monitor.js';
import { replyLine, type WorkerMessage } from './protocol.js';
import { takePrestarted } from './prestart.js';
import { sandboxSparesEnabled } from './spares.js';
import { DEFAULT_SANDBOX_LIMITS, SandboxProcess, errorFromPayload, payloadFromError, type SandboxHandlers, type SandboxLimits, type ScriptExecution, type ScriptSpec } from './sandbox-process.js';

export { DEFAULT_SANDBOX_LIMITS, errorFromPayload, type CallOutcome, type SandboxCall, type SandboxHandlers, type SandboxLimits, type ScriptExecution, type ScriptSpec } from './sandbox-process.js';
export { prestartSandbox } from './prestart.js';

export interface SandboxPoolOptions {
  readonly limits?: Partial<SandboxLimits>;
  /** Keep a spare process started (default true; spares.ts can turn it off process-wide). */
  readonly warm?: boolean;
  /** The store whose sandbox code cache the processes use (code-cache.ts); none without it. */
  readonly codeCacheRoot?: string;
}

export class SandboxPool {
  readonly limits: SandboxLimits;
  readonly #warm: boolean;
  readonly #codeCacheRoot: string | undefined;
  #spare: SandboxProcess | undefined;
  #closed = false;

  constructor(options: SandboxPoolOptions = {}) {
    this.limits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
    this.#codeCacheRoot = options.codeCacheRoot;
    const warm = options.warm ?? true;
    this.#warm = warm && sandboxSparesEnabled();
    if (warm) this.#spare = takePrestarted(this.limits) ?? (this.#warm ? this.#start() : undefined);
  }

  #start(): SandboxProcess {
    return new SandboxProcess(this.limits, this.#codeCacheRoot);
  }

  #acquire(): SandboxProcess {
    if (this.#closed) throw new WorkflowError('CANCELLED', 'the sandbox pool is closed');
    const spare = this.#spare !== undefined && !this.#spare.exited ? this.#spare : this.#start();
    this.#spare = undefined;
    return spare;
  }

  /**
   * The next spare starts once the taken sandbox first answers (or ends):
   * spawning takes milliseconds of this thread, and the new process's start
   * competes for the CPU with the script being compiled and run.
   */
  #replenish(): void {
    if (this.#warm) setImmediate(() => {
      if (!this.#closed && this.#spare === undefined) this.#spare = this.#start();
    });
  }

  /** Starts one script in a fresh sandbox process. */
  run(spec: ScriptSpec, handlers: SandboxHandlers): ScriptExecution {
    let sandbox: SandboxProcess;
    try {
      sandbox = this.#acquire();
    } catch (error) {
      return { result: Promise.reject(error), terminate: async () => undefined };
    }
    let finish: (error: WorkflowError | undefined, value?: JsonValue) => void = () => undefined;
    let answered = false;
    const replenish = (): void => {
      if (answered) return;
      answered = true;
      this.#replenish();
    };
    const result = new Promise<JsonValue>((resolve, reject) => {
      let done = false;
      let monitor: Monitor | undefined;
      finish = (error, value) => {
        if (done) return;
        done = true;
        replenish();
        monitor?.stop();
        sandbox.kill();
        if (error) reject(error);
        else resolve(value ?? null);
      };
      const runaway = (reason: Runaway): void =>
        finish(
          new WorkflowError(
            'INTERNAL_ERROR',
            reason === 'cpu_watchdog'
              ? `The workflow script ran for ${this.limits.watchdogMs} ms of CPU time without yielding (runaway loop)`
              : `The workflow script exceeded its ${this.limits.maxRssMb} MB memory limit`,
            { reason },
          ),
        );
      sandbox.attach({
        message: (message) => {
          replenish();
          if (!done) this.#handle(message, handlers, sandbox, finish, () => monitor?.pong(), spec.locate);
        },
        exit: () => {
          const memory = /heap out of memory|Fatal process out of memory|invalid (?:array|table) size|Reached heap limit/i.test(sandbox.stderr);
          finish(
            new WorkflowError(
              'INTERNAL_ERROR',
              memory ? `The workflow script exceeded its ${this.limits.maxOldGenerationSizeMb} MB memory limit` : `The sandbox process ended unexpectedly (${sandbox.describeExit()})`,
              { reason: memory ? 'memory_limit' : 'sandbox_error' },
            ),
          );
        },
        broken: (why) => finish(new WorkflowError('INTERNAL_ERROR', `The sandbox failed: ${why}`, { reason: 'sandbox_error' })),
      });
      sandbox.setRef(true);
      sandbox.ready.then(
        () => {
          if (done) return;
          monitor = new Monitor(sandbox.child.pid!, this.limits, () => sandbox.send({ t: 'ping' }), runaway);
          sandbox.send({
            t: 'start',
            program: spec.program,
            marker: spec.marker,
            sites: spec.sites,
            args: spec.args,
            globals: spec.globals,
            promptSyntax: spec.promptSyntax ?? 'braces',
            maxValueBytes: this.limits.maxValueBytes,
            replay: spec.replay ?? [],
          });
        },
        (error: unknown) => finish(error instanceof WorkflowError ? error : new WorkflowError('INTERNAL_ERROR', String(error), { reason: 'sandbox_error' })),
      );
    });
    return {
      result,
      terminate: async () => {
        finish(new WorkflowError('CANCELLED', 'the workflow script was stopped'));
        await sandbox.gone();
      },
    };
  }

  #handle(
    message: WorkerMessage,
    handlers: SandboxHandlers,
    sandbox: SandboxProcess,
    finish: (error: WorkflowError | undefined, value?: JsonValue) => void,
    pong: () => void,
    locate?: Locate,
  ): void {
    const fail = (error: unknown): void => finish(error instanceof WorkflowError ? error : errorFromPayload(payloadFromError(error)));
    switch (message.t) {
      case 'pong':
        return pong();
      case 'call': {
        const { t: _t, id, ...call } = message;
        handlers.call(call).then(
          (outcome) => {
            sandbox.send(replyLine(id, outcome));
            try {
              outcome.commit?.();
            } catch (error) {
              fail(error);
            }
          },
          (error: unknown) => fail(error),
        );
        return;
      }
      case 'replayed': {
        const { t: _t, failed, ...call } = message;
        try {
          handlers.replayed({ ...call, failed: failed === true });
        } catch (error) {
          fail(error);
        }
        return;
      }
      case 'notify': {
        const { t: _t, ...call } = message;
        try {
          handlers.notify(call);
        } catch (error) {
          fail(error);
        }
        return;
      }
      case 'done':
        return finish(undefined, message.value);
      case 'failed':
        return finish(errorFromPayload(message.error, locate));
      case 'stalled':
        return finish(new WorkflowError('INTERNAL_ERROR', 'The workflow script is waiting on a promise that can never settle', { reason: 'never_settles' }));
      default:
        return;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const spare = this.#spare;
    this.#spare = undefined;
    if (spare) {
      spare.kill();
      await spare.gone();
    }
  }
}
