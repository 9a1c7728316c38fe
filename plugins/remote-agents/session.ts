/**
 * A kernel `WorkflowSession` whose turns run on a worker: `prompt`
 * enqueues the attempt under its workflow ID (or re-attaches to it: the ID is
 * an idempotency key) and ends with the worker's outcome. Usage is the sum
 * over executions (usage-store.ts): an attempt recovered from a dead worker
 * counts the turns its first execution finished too. While the attempt runs,
 * every turn a worker finishes is reported as `turn_end` with the attempt's
 * cumulative usage, as a local session reports it, so the budgets plugin can
 * stop the agent between turns. `abort` cancels the DBOS workflow, which the
 * worker notices and stops its Pi session.
 *
 * A named handle's later `send` is a new queued attempt, `<id>/t<turn>`: it
 * carries the session file of the handle's previous turn and starts at that
 * turn's result commit, and the worker resumes that Pi session. Stats stay
 * cumulative over the handle's turns, as a local session's are.
 *
 * A lost database connection while waiting is waited out (the run waits);
 * stop, time-outs and cancellation still end the wait at once.
 */
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import { WorkflowError, type CustomToolDefinition, type JsonSchema, type JsonValue, type ResolvedResources, type SessionProgress, type SessionStats, type WorkflowSession } from '../../kernel/index.js';
import { APPLICATION_VERSION, ATTEMPT_WORKFLOW, parseOutcome, resultBranch, turnWorkflowId, type AttemptOutcome, type AttemptRequest, type AttemptStats } from './attempt.js';
import { offeredTools, type OfferedTool } from './call-check.js';
import { CALL_CHANNEL, type CallLog } from './call-log.js';
import type { CompletionListener } from './completions.js';
import { isConnectionError } from './connection-errors.js';
import { saveTranscript } from './transcript.js';
import { HostCalls } from './host-calls.js';
import type { Notifications } from './notifications.js';
import { TurnFeed } from './turn-feed.js';
import type { TurnLog } from './turn-log.js';
import type { UsageStore } from './usage-store.js';

export interface RemoteSessionOptions {
  readonly client: () => Promise<DBOSClient>;
  readonly usage: () => UsageStore;
  /** Wakes the wait for the outcome when the attempt's workflow ends (completions.ts). */
  readonly completions: () => CompletionListener;
  /** The workers' per-turn rows, read while the attempt runs (turn-feed.ts). */
  readonly turns: () => TurnLog;
  /** The attempt's host tool calls (host-calls.ts), read while it runs when it offers host tools. */
  readonly calls: () => CallLog;
  /** Wakes the reading of host tool calls when a worker records one. */
  readonly notifications: () => Pick<Notifications, 'arm' | 'listen'>;
  /** The session's custom tools, run here when the worker's proxies call them. */
  readonly hostTools: readonly CustomToolDefinition[];
  readonly queue: string;
  /** The attempt without its turn: the prompt and result schema come with `prompt`. */
  readonly request: Omit<AttemptRequest, 'prompt' | 'outputSchema'>;
  /** The host file the worker's transcript is written to (transcript.ts). */
  readonly transcriptFile: string;
  /** Applies the agent's commit (its changes since `baseCommit`) to the host's working tree. */
  readonly applyCommit: (commit: NonNullable<AttemptOutcome['commit']>, baseCommit: string) => Promise<void>;
  readonly pollMs: number;
  /** How often finished turns are read while the attempt runs. */
  readonly turnPollMs: number;
  readonly signal: AbortSignal;
}

const ZERO: AttemptStats = Object.freeze({ inputTokens: 0, outputTokens: 0, costUsd: 0, turns: 0 });
const RETRY_CAP_MS = 2000;
/** How often the outcome is read when no notification came: a lost notification costs at most this. */
const FALLBACK_POLL_MS = 500;
/** An attempt cancelled with an interrupted segment runs again under `<id>/r<n>` on resume; more than this is a loop. */
const MAX_RERUNS = 50;
/** How often host tool calls are read when no notification came. */
const CALLS_FALLBACK_MS = 1000;

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
  /** Turns prompted so far; a handle's later turn continues the session. */
  #turn = 0;
  /** The cumulative stats of the handle's finished turns. */
  #carried: AttemptStats = ZERO;
  /** Where the next turn starts: the last turn's result commit, at first the run's base. */
  #baseCommit: string;
  readonly #tools: ReadonlyMap<string, OfferedTool>;
  /**
   * What the worker's session resolved, as its latest host tool call
   * reported it: the ceiling of a child that call spawns. Absent until a
   * call reported it (the contract's `resources` has no "not known yet").
   */
  resources?: () => ResolvedResources;

  constructor(options: RemoteSessionOptions) {
    this.#options = options;
    this.#tools = offeredTools(options.hostTools);
    this.#workflowId = options.request.workflowId;
    this.#baseCommit = options.request.repository.baseCommit;
    this.reference = Object.freeze({ transport: 'remote', via: 'remote', workflowId: options.request.workflowId, queue: options.queue, sessionFile: options.transcriptFile });
  }

  /** The worker's Pi session ID once it answered; until then the attempt's workflow ID. */
  get nativeSessionId(): string {
    return this.#outcome?.sessionId ?? this.#workflowId;
  }

  /** The worker's effective system prompt, known once it answered (the engine reads it again after the turn); at a handle's later turn, the previous turn's. */
  systemPrompt(): string | undefined {
    return this.#outcome?.systemPrompt;
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
    if (this.#state === 'running') throw new Error('the remote agent is already running a turn');
    const previous = this.#outcome;
    if (this.#prompted && previous === undefined) throw new WorkflowError('AGENT_FAILED', "the remote handle's previous turn did not finish: its session cannot continue");
    this.#prompted = true;
    this.#turn += 1;
    const request = this.#turnRequest(text, turn?.outputSchema, previous);
    this.#outcome = undefined;
    this.#state = 'running';
    try {
      const client = await this.#options.client();
      this.#workflowId = await this.#attach(client, request);
      const feed = new TurnFeed(this.#options.turns, this.#workflowId);
      const following = new AbortController();
      const followed = Promise.all([this.#follow(feed, following.signal), this.#answer(this.#workflowId, following.signal)]);
      let answer: unknown;
      try {
        answer = await this.#waitOut(() => this.#result(client));
      } finally {
        following.abort();
        await followed;
      }
      // Every turn is reported before the outcome: a hard limit reached after one of them stops the agent there, as locally.
      this.#report(await this.#waitOut(() => feed.read()));
      this.#check();
      const outcome = parseOutcome(answer, this.#workflowId);
      this.#outcome = outcome;
      // The outcome's stats are the answering execution's; the table holds those of executions that died.
      this.#stats = add(this.#carried, add(outcome.stats, await this.#waitOut(() => this.#options.usage().others(this.#workflowId, outcome.execution ?? outcome.sessionId))));
      saveTranscript(this.#options.transcriptFile, outcome);
      if (outcome.status === 'failed') {
        this.#emit({ type: 'turn_end', stats: this.stats() });
        const error = outcome.error ?? { code: 'AGENT_FAILED', message: 'the remote agent failed' };
        throw new WorkflowError('AGENT_FAILED', `remote agent failed on worker ${outcome.executor}: ${error.code}: ${error.message}`);
      }
      if (outcome.commit !== undefined) await this.#options.applyCommit(outcome.commit, request.repository.baseCommit);
      this.#carried = this.#stats;
      this.#baseCommit = outcome.commit?.sha ?? this.#baseCommit;
      // The result before the last turn's end, as a local session emits them: a final turn that overshoots a hard limit is accepted.
      if (outcome.submitted !== undefined) this.#emit({ type: 'result', value: outcome.submitted.value });
      this.#emit({ type: 'turn_end', stats: this.stats() });
    } finally {
      if (this.#state === 'running') this.#state = 'idle';
    }
  }

  /** This turn's attempt: the first as the engine prepared it; a later one continues the previous turn's session and commit. */
  #turnRequest(prompt: string, outputSchema: JsonSchema | undefined, previous: AttemptOutcome | undefined): AttemptRequest {
    const base = this.#options.request;
    const workflowId = turnWorkflowId(base.workflowId, this.#turn);
    return {
      ...base,
      workflowId,
      prompt,
      ...(outputSchema === undefined ? {} : { outputSchema }),
      repository: { ...base.repository, baseCommit: this.#baseCommit, resultBranch: resultBranch(workflowId) },
      ...(previous === undefined ? {} : { continuation: { turn: this.#turn, transcript: previous.transcript } }),
    };
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

  /** Answers the attempt's host tool calls until `stop` (host-calls.ts); an attempt that offers none reads nothing. */
  async #answer(workflowId: string, stop: AbortSignal): Promise<void> {
    if (this.#tools.size === 0) return;
    const calls = new HostCalls({
      workflowId,
      tools: this.#tools,
      log: this.#options.calls,
      arm: () => this.#options.notifications().arm(CALL_CHANNEL, workflowId),
      listening: () => this.#options.notifications().listen(),
      onCall: (resources) => {
        if (resources !== undefined) this.resources = () => resources;
      },
      fallbackMs: CALLS_FALLBACK_MS,
    });
    await calls.follow(AbortSignal.any([stop, this.#abort.signal, this.#options.signal]));
  }

  /** Reads finished turns every `turnPollMs` until `stop`; a failed read is left to the next one (the last read after the outcome catches up). */
  async #follow(feed: TurnFeed, stop: AbortSignal): Promise<void> {
    while (!stop.aborted && !this.#abort.signal.aborted) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.#options.turnPollMs);
        stop.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      if (stop.aborted) return;
      try {
        this.#report(await feed.read());
      } catch {
        // The database is restarting: the outcome's wait deals with that.
      }
    }
  }

  /** Reports turns in order; once the agent is aborted (a hard limit after one of them) the rest are not its usage. */
  #report(turns: readonly AttemptStats[]): void {
    for (const stats of turns) {
      if (this.#abort.signal.aborted || this.#options.signal.aborted) return;
      this.#stats = add(this.#carried, stats);
      this.#emit({ type: 'turn_end', stats: this.#stats });
    }
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

export { isConnectionError } from './connection-errors.js';
