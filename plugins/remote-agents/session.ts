/**
 * A kernel `WorkflowSession` whose one turn runs on a worker: `prompt`
 * enqueues the attempt under its workflow ID (or re-attaches to it: the ID is
 * an idempotency key) and ends with the worker's outcome. Usage is the sum
 * over executions (usage-store.ts): an attempt recovered from a dead worker
 * counts the turns its first execution finished too. `abort` cancels the
 * DBOS workflow, which the worker notices and stops its Pi session.
 *
 * A lost database connection while waiting is waited out (the run waits);
 * stop, time-outs and cancellation still end the wait at once.
 */
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import { WorkflowError, messageOf, type JsonSchema, type JsonValue, type SessionProgress, type SessionStats, type WorkflowSession } from '../../kernel/index.js';
import { APPLICATION_VERSION, ATTEMPT_WORKFLOW, parseOutcome, type AttemptOutcome, type AttemptRequest, type AttemptStats } from './attempt.js';
import type { CompletionListener } from './completions.js';
import { saveTranscript } from './transcript.js';
import type { UsageStore } from './usage-store.js';

export interface RemoteSessionOptions {
  readonly client: () => Promise<DBOSClient>;
  readonly usage: () => UsageStore;
  /** Wakes the wait for the outcome when the attempt's workflow ends (completions.ts). */
  readonly completions: () => CompletionListener;
  readonly queue: string;
  /** The attempt without its turn: the prompt and result schema come with `prompt`. */
  readonly request: Omit<AttemptRequest, 'prompt' | 'outputSchema'>;
  /** The host file the worker's transcript is written to (transcript.ts). */
  readonly transcriptFile: string;
  /** Applies the agent's commit to the host's working tree. */
  readonly applyCommit: (commit: NonNullable<AttemptOutcome['commit']>) => Promise<void>;
  readonly pollMs: number;
  readonly signal: AbortSignal;
}

const ZERO: AttemptStats = Object.freeze({ inputTokens: 0, outputTokens: 0, costUsd: 0, turns: 0 });
const RETRY_CAP_MS = 2000;
/** How often the outcome is read when no notification came: a lost notification costs at most this. */
const FALLBACK_POLL_MS = 500;
/** An attempt cancelled with an interrupted segment runs again under `<id>/r<n>` on resume; more than this is a loop. */
const MAX_RERUNS = 50;

type Listener = (progress: SessionProgress) => void;

export class RemoteSession implements WorkflowSession {
  readonly reference: Readonly<Record<string, JsonValue>>;
  readonly turnControlDelivered = true;
  readonly #options: RemoteSessionOptions;
  readonly #listeners = new Set<Listener>();
  #stats: AttemptStats = ZERO;
  readonly #abort = new AbortController();
  #state: 'idle' | 'running' | 'disposed' = 'idle';
  #workflowId: string;
  #outcome: AttemptOutcome | undefined;
  #prompted = false;

  constructor(options: RemoteSessionOptions) {
    this.#options = options;
    this.#workflowId = options.request.workflowId;
    this.reference = Object.freeze({ transport: 'remote', via: 'remote', workflowId: options.request.workflowId, queue: options.queue, sessionFile: options.transcriptFile });
  }

  /** The worker's Pi session ID once it answered; until then the attempt's workflow ID. */
  get nativeSessionId(): string {
    return this.#outcome?.sessionId ?? this.#workflowId;
  }

  model(): string {
    return this.#outcome?.model ?? this.#options.request.model;
  }

  state(): 'idle' | 'running' | 'disposed' {
    return this.#state;
  }

  stats(): SessionStats {
    return this.#stats;
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  async prompt(text: string, turn?: { readonly outputSchema?: JsonSchema }): Promise<void> {
    if (this.#state === 'disposed') throw new Error('the agent session was disposed');
    if (this.#prompted) throw new WorkflowError('AGENT_FAILED', 'a remote agent runs one turn: a named handle cannot send it a second one (run the handle locally with extensionSettings["remote-agents"].agents)');
    this.#prompted = true;
    const request: AttemptRequest = { ...this.#options.request, prompt: text, ...(turn?.outputSchema === undefined ? {} : { outputSchema: turn.outputSchema }) };
    this.#state = 'running';
    try {
      const client = await this.#options.client();
      this.#workflowId = await this.#attach(client, request);
      const outcome = parseOutcome(await this.#waitOut(() => this.#result(client)), this.#workflowId);
      this.#outcome = outcome;
      // The outcome's stats are the answering execution's; the table holds those of executions that died.
      this.#stats = add(outcome.stats, await this.#waitOut(() => this.#options.usage().others(this.#workflowId, outcome.sessionId)));
      saveTranscript(this.#options.transcriptFile, outcome);
      this.#emit({ type: 'turn_end', stats: this.stats() });
      if (outcome.status === 'failed') {
        const error = outcome.error ?? { code: 'AGENT_FAILED', message: 'the remote agent failed' };
        throw new WorkflowError('AGENT_FAILED', `remote agent failed on worker ${outcome.executor}: ${error.code}: ${error.message}`);
      }
      if (outcome.commit !== undefined) await this.#options.applyCommit(outcome.commit);
      if (outcome.submitted !== undefined) this.#emit({ type: 'result', value: outcome.submitted.value });
    } finally {
      if (this.#state === 'running') this.#state = 'idle';
    }
  }

  async steer(): Promise<void> {
    // Turn control travels with the attempt (turnControlDelivered); a remote turn cannot be steered while it runs.
  }

  async abort(): Promise<void> {
    this.#abort.abort();
    if (!this.#prompted || this.#outcome !== undefined) return;
    const client = await this.#options.client().catch(() => undefined);
    await client?.cancelWorkflow(this.#workflowId).catch(() => undefined);
  }

  async dispose(): Promise<void> {
    if (this.#state === 'running') await this.abort();
    this.#listeners.clear();
    this.#state = 'disposed';
  }

  /** The workflow's result, read once its status is final (woken by the completion trigger, polled as a fallback). */
  async #result(client: DBOSClient): Promise<unknown> {
    await this.#options.completions().finished(this.#workflowId, AbortSignal.any([this.#abort.signal, this.#options.signal]), Math.max(FALLBACK_POLL_MS, this.#options.pollMs));
    return client.retrieveWorkflow(this.#workflowId).getResult({ pollingIntervalMs: this.#options.pollMs });
  }

  /** Enqueues the attempt, or re-attaches to it; an attempt cancelled with an interrupted segment runs again under a new ID. */
  async #attach(client: DBOSClient, attempt: AttemptRequest): Promise<string> {
    const base = attempt.workflowId;
    // Loaded by the client already: the SDK stays out of a Pi start.
    const { Error: DBOSErrors } = await import('@dbos-inc/dbos-sdk');
    for (let rerun = 0; rerun <= MAX_RERUNS; rerun += 1) {
      const workflowID = rerun === 0 ? base : `${base}/r${rerun}`;
      // 'reject' tells a new workflow from an existing one; only an existing one can have been cancelled.
      const created = await this.#waitOut(() =>
        client.enqueue({ queueName: this.#options.queue, workflowName: ATTEMPT_WORKFLOW, workflowID, appVersion: APPLICATION_VERSION, workflowIDReusePolicy: 'reject' }, attempt).then(
          () => true,
          (error: unknown) => {
            if (DBOSErrors.isWorkflowIDInUseError(error)) return false;
            throw error;
          },
        ),
      );
      if (created || !(await this.#wasCancelled(client, workflowID))) return workflowID;
    }
    throw new WorkflowError('AGENT_FAILED', `the remote attempt ${base} was cancelled more than ${MAX_RERUNS} times`);
  }

  /**
   * Whether an existing workflow was cancelled: its status says so, or the
   * worker's recorded outcome does (an attempt cancelled as its session
   * finished is recorded as a success carrying the CANCELLED error).
   */
  async #wasCancelled(client: DBOSClient, workflowID: string): Promise<boolean> {
    const status = await this.#waitOut(() => client.getWorkflow(workflowID));
    if (status?.status === 'CANCELLED') return true;
    if (status?.status !== 'SUCCESS') return false;
    const output: unknown = status.output;
    return typeof output === 'object' && output !== null && (output as { error?: { code?: unknown } }).error?.code === 'CANCELLED';
  }

  /** Calls `read` until the database answers; the wait ends at once when the attempt is aborted. */
  async #waitOut<T>(read: () => Promise<T>): Promise<T> {
    for (;;) {
      this.#check();
      try {
        return await read();
      } catch (error) {
        this.#check();
        if (!isConnectionError(error)) throw error;
        await this.#pause();
      }
    }
  }

  #delay = 100;

  async #pause(): Promise<void> {
    const signal = this.#abort.signal;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.#delay);
      signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
    this.#delay = Math.min(this.#delay * 2, RETRY_CAP_MS);
    this.#check();
  }

  #check(): void {
    if (this.#abort.signal.aborted || this.#options.signal.aborted) throw new Error('the agent was aborted');
  }

  #emit(progress: SessionProgress): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(progress);
      } catch {
        // A consumer's bug must not end the attempt.
      }
    }
  }
}

function add(a: AttemptStats, b: AttemptStats): AttemptStats {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, costUsd: a.costUsd + b.costUsd, turns: a.turns + b.turns };
}

/** Postgres unreachable or restarting: worth waiting for, unlike any answer from DBOS. */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (/^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN)$/.test(code) || /^(57P0[1-3]|08\d{3})$/.test(code))) return true;
  return /Connection terminated|connection error|terminating connection|the database system is (starting up|shutting down)|Client has encountered a connection error/i.test(messageOf(error));
}
