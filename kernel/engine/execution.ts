/**
 * One execution segment of a run: a fresh sandbox realm evaluating the
 * script, every effect keyed structurally, replayed from the journal when it
 * already completed, journaled once when it completes now. A segment ends in
 * a terminal state, `budget_exhausted`, `paused` or `interrupted`; resuming starts a new segment.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { WorkflowError } from '../errors.js';
import { isStoreFault } from '../store/index.js';
import type { AgentCallOptions } from '../contracts/agent-options.js';
import type { JsonValue } from '../json.js';
import type { PrimitiveDefinition } from '../contracts/primitive.js';
import { performPrimitive } from './ops/primitives.js';
import { Decisions } from './decisions.js';
import { Invocations } from './invocations.js';
import type { WorkflowRunContext } from '../contracts/function-context.js';
import type { Journal } from '../store/index.js';
import type { ScriptExecution } from '../sandbox/pool.js';
import { sandboxReplayTable, type ReplaySource } from './replay.js';
import type { JournalRecord } from './journal-record.js';
import { OccurrenceCounter, scopeKey, type Scope } from './keys.js';
import { sandboxHandlers, type SandboxProgram } from './sandbox-bridge.js';
import { Steps, type Incoming } from './steps.js';
import { NoteBudget } from './ops/note-budget.js';
import type { RunRecord } from './run-record.js';
import { performShell, replayShell } from './ops/shell.js';
import { AgentOps, journaledAgentStep } from './ops/agent-ops.js';
import type { FunctionHost } from './ops/function-context.js';
import { deepFreeze } from '../json.js';
import { promptSyntaxOf, type PromptSyntax } from '../template.js';
import type { RunState } from '../states.js';
import { asWorkflowError, persistFailure, scriptEnding } from './settle.js';
import { noteLog, notePhase, observeLog } from './ops/notes.js';
import type { RunAccess } from '../contracts/run-access.js';
import { ActiveClock, createRunAccess } from './run-access.js';
import { ScopeCwds } from './scope-cwds.js';
import { OptionNotes } from './foreign-options.js';
import { appendRunEvent } from './run-log.js';
import { cancelUnfinishedAgents } from './unfinished-agents.js';
import { PauseGate } from './pause-gate.js';
import { invokeFunction } from './ops/function-call.js';

import { scriptGlobals, type ExecutionEnv, type SegmentOutcome } from './execution-types.js';

export type { ExecutionEnv, SegmentOutcome } from './execution-types.js';

export class RunExecution implements FunctionHost {
  readonly finished: Promise<SegmentOutcome>;
  readonly run: WorkflowRunContext;
  #settle!: (outcome: SegmentOutcome) => void;
  readonly #env: ExecutionEnv;
  readonly #record: RunRecord;
  readonly #journal: Journal;
  readonly #replay: ReadonlyMap<string, JournalRecord>;
  readonly #counter = new OccurrenceCounter();
  readonly #invocations = new Invocations();
  readonly #abort = new AbortController();
  readonly #hostScopes = new AsyncLocalStorage<Scope>();
  readonly #agents: AgentOps;
  readonly #decisions: Decisions;
  readonly #onEnd: () => void;
  readonly #clock: ActiveClock;
  readonly #access: RunAccess;
  readonly #scopeCwds: ScopeCwds;
  #script: ScriptExecution | undefined;
  readonly #steps: Steps;
  readonly #notes = new NoteBudget();
  #ended = false;
  /** Set when stop or interrupt began: the script's own ending no longer decides the outcome. */
  #closing = false;
  /** The store fault that halted the segment (a full disk, a damaged entry), if one did. */
  #fault: WorkflowError | undefined;
  readonly #pause: PauseGate;
  readonly #optionNotes: OptionNotes;
  /** Shell calls in flight: a stop or interrupt waits until their process groups are gone. */
  readonly #shells = new Set<Promise<unknown>>();

  constructor(env: ExecutionEnv, record: RunRecord, source: Omit<ReplaySource, 'replay'> & { readonly replay: ReadonlyMap<string, JournalRecord> }, onEnd: () => void) {
    const { replay, nextSeq } = source;
    const journal = this.#watched(source.journal);
    this.#pause = new PauseGate({
      record,
      ended: () => this.#ended,
      assertLive: () => this.#assertLive(),
      pendingDecisions: () => this.#decisions.pending,
      finish: () => this.#end('paused', () => this.#record.transition('paused', this.#stamp)),
    });
    record.onStoreFault = (error) => this.#halt(error);
    this.#env = env;
    this.#steps = new Steps(
      {
        replay,
        journal,
        counter: this.#counter,
        maxValueBytes: env.pool.limits.maxValueBytes,
        gate: () => this.#pause.gate(),
        assertLive: () => this.#assertLive(),
        inflight: (delta) => this.#pause.adjust(delta),
        observe: (record, replayed) => this.#observe(record, replayed),
        diverge: (error) => this.#failWith(error),
        fault: (error) => this.#halt(error),
      },
      nextSeq,
    );
    this.#record = record;
    this.#optionNotes = new OptionNotes(env.kernel, env.registry, (message) => appendRunEvent(record.runDir, { at: new Date().toISOString(), type: 'warning', message }));
    this.#journal = journal;
    this.#replay = replay;
    this.#onEnd = onEnd;
    this.#clock = new ActiveClock(record.snapshot.activeMs ?? 0);
    this.#access = createRunAccess(record, () => this.#clock.ms());
    this.#scopeCwds = new ScopeCwds(record.snapshot.cwd);
    this.#decisions = new Decisions(record, this.#abort.signal, {
      waitStarted: () => {
        this.#clock.waitStarted();
        this.#pause.adjust(-1);
      },
      waitEnded: () => {
        this.#clock.waitEnded();
        this.#pause.adjust(1);
      },
      assertLive: () => this.#assertLive(),
    });
    const { runId, sessionId, cwd, workflow, args } = record.snapshot;
    this.run = Object.freeze({ runId, sessionId, cwd, workflow: Object.freeze({ ...workflow }), args: deepFreeze(structuredClone(args)), signal: this.#abort.signal });
    this.finished = new Promise((resolve) => (this.#settle = resolve));
    const agentDeps = {
      kernel: env.kernel,
      segment: env.segment,
      run: this.run,
      record,
      agentDir: env.agentDir,
      projectTrusted: env.projectTrusted,
      settings: env.extensionSettings,
      breadcrumb: (path: readonly string[]) => this.#invocations.breadcrumb(path),
      ended: () => this.#ended,
      access: this.#access,
      concurrency: env.concurrency,
      agentSlots: env.agentSlots,
      scopeCwds: this.#scopeCwds,
      signal: this.#abort.signal,
      noteOptions: (site: string, options: Readonly<Record<string, unknown>>) => this.#optionNotes.note(site, options),
      adoptOptions: (site: string, options: AgentCallOptions) => this.#optionNotes.adopt(site, options),
    };
    this.#agents = new AgentOps(agentDeps, journaledAgentStep(this.#steps));
  }

  get state(): RunState {
    return this.#record.snapshot.state;
  }

  /** The store fault that halted this segment `interrupted`, if one did (its state may not have been writable). */
  get fault(): WorkflowError | undefined {
    return this.#fault;
  }

  /** The journal, as the segment uses it: a failed append (a store fault) halts the segment before anything else happens. */
  #watched(journal: Journal): Journal {
    return {
      records: journal.records,
      droppedBytes: journal.droppedBytes,
      append: (record) => {
        try {
          journal.append(record);
        } catch (error) {
          if (isStoreFault(error)) this.#halt(error);
          throw error;
        }
      },
      close: () => journal.close(),
    };
  }

  get settings(): Readonly<Record<string, JsonValue>> {
    return this.#env.extensionSettings;
  }

  get promptSyntax(): PromptSyntax {
    return promptSyntaxOf(this.#record.snapshot.scriptLanguage);
  }

  start({ program, sites, locate, agentOptionKeys }: SandboxProgram): void {
    if (agentOptionKeys !== undefined) this.#optionNotes.launchKeys = agentOptionKeys;
    const globals = scriptGlobals(this.#env.registry, this.#env.primitives);
    const handlers = sandboxHandlers({
      replay: this.#replay,
      maxValueBytes: this.#env.pool.limits.maxValueBytes,
      ending: () => this.#ended || this.#closing,
      perform: (op, site, scope, args, incoming) => this.perform(op, site, scope, args, incoming),
      notify: (op, site, scope, args) => this.notify(op, site, scope, args),
      append: (entry) => this.#journal.append(entry as unknown as Parameters<Journal['append']>[0]),
      takeSeq: () => this.#steps.takeSeq(),
      takeDelivered: (key) => this.#steps.takeDelivered(key),
      fail: (error) => this.#failWith(error),
      fault: (error) => this.#halt(error),
    });
    this.#script = this.#env.pool.run(
      {
        program,
        sites,
        marker: this.#env.siteGlobal,
        args: this.#record.snapshot.args,
        globals,
        promptSyntax: this.promptSyntax,
        ...(locate === undefined ? {} : { locate }),
        replay: sandboxReplayTable(this.#replay, this.#env.registry, this.#env.primitives),
      },
      handlers,
    );
    this.#script.result
      .then(
        (value) => this.#complete(value),
        (error: unknown) => this.#failWith(error),
      )
      .catch((error: unknown) => this.#env.warn?.(asWorkflowError(error)));
  }

  // ---- lifecycle -------------------------------------------------------

  /** Ends the segment; never throws (it runs in promise callbacks, where a throw would reach the host's process). */
  #end(outcome: SegmentOutcome, persist: () => void): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#abort.abort();
    void this.#script?.terminate().catch(() => undefined);
    let ended = outcome;
    try {
      this.#agents.dispose();
      if (outcome === 'completed' || outcome === 'failed') cancelUnfinishedAgents(this.#record);
      persist();
    } catch (error) {
      this.#env.warn?.(asWorkflowError(error));
      // A store that cannot take the ending cannot take a failure either; the run stays resumable (read as interrupted once unlocked).
      if (isStoreFault(error)) {
        this.#fault ??= asWorkflowError(error);
        ended = 'interrupted';
      } else ended = persistFailure(this.#record, error, this.#stamp);
    } finally {
      this.#journal.close();
      this.#onEnd();
      this.#settle(ended);
    }
  }

  /** Active time is persisted with the state that ends the segment. */
  #stamp = (draft: { activeMs?: number }): void => {
    draft.activeMs = this.#clock.ms();
  };

  #complete(value: JsonValue): void {
    this.#settleScript({}, value);
  }

  #failWith(error: unknown): void {
    this.#settleScript({ failure: error });
  }

  #settleScript(ended: { failure?: unknown }, value?: JsonValue): void {
    if (this.#closing || this.#ended) return;
    const ending = scriptEnding(this.#env.kernel, this.#access, this.#record, ended, value, this.#stamp);
    if (ending.fault) {
      this.#fault = ending.fault;
      this.#env.warn?.(ending.fault);
    }
    this.#end(ending.outcome, () => ending.persist());
  }

  /** Immediate and irreversible: cancel everything in flight, then persist. */
  async stop(): Promise<void> {
    if (this.#ended || this.#closing) return;
    this.#closing = true;
    await this.#cancelInFlight();
    this.#end('stopped', () => this.#record.transition('stopped', this.#stamp));
  }

  /**
   * A store fault (a full disk, a read-only or damaged run directory): the
   * segment halts `interrupted` at once, with the fault as its `failure`, and
   * can be resumed once the store is fixed. The fault is never journaled and
   * never reaches the script, so a resume does not replay it.
   */
  #halt(error: unknown): void {
    if (this.#ended || this.#closing) return;
    const fault = asWorkflowError(error);
    this.#fault = fault;
    this.#closing = true;
    this.#abort.abort();
    this.#env.warn?.(fault);
    this.#end('interrupted', () =>
      this.#record.transition('interrupted', (draft) => {
        draft.failure = fault.toJSON() as { code: string; message: string };
        this.#stamp(draft);
      }),
    );
  }

  /** The host is going away (session end): the run can be resumed later. */
  async interrupt(): Promise<void> {
    if (this.#ended || this.#closing) return;
    this.#closing = true;
    await this.#cancelInFlight();
    this.#end('interrupted', () => this.#record.transition('interrupted', this.#stamp));
  }

  /** Aborts every operation; the state is saved once the script stopped and no shell's process group runs (bounded by the shells' grace). */
  async #cancelInFlight(): Promise<void> {
    this.#abort.abort();
    await Promise.all([this.#script?.terminate(), Promise.allSettled([...this.#shells])]);
  }

  /** Cooperative: no new operation starts; the run is paused once active ones finish (pause-gate.ts). */
  pause(): void {
    this.#pause.pause();
  }

  cancelPause(): void {
    this.#pause.cancel();
  }

  #assertLive(): void {
    if (this.#ended) throw new WorkflowError('CANCELLED', 'the run is no longer executing');
  }

  respond(name: string, approved: boolean): boolean {
    return this.#decisions.respond(name, approved);
  }

  // ---- dispatch --------------------------------------------------------

  /**
   * Dispatches one operation; its step (reached synchronously) reads what
   * the call is and, for the sandbox's calls, the key the sandbox gave it.
   */
  perform(op: string, site: string, scope: Scope, args: readonly JsonValue[], incoming?: Incoming): Promise<JsonValue> {
    try {
      return this.#steps.dispatching({ op, args }, incoming, () => this.#dispatch(op, site, scope, args));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #dispatch(op: string, site: string, scope: Scope, args: readonly JsonValue[]): Promise<JsonValue> {
    if (op === 'shell') return this.#shell(site, scope, args);
    if (op === 'agent') return this.#agents.agent(site, scope, args);
    if (op === 'agent.send') return this.#agents.send(site, scope, args);
    if (this.#env.registry.getFunction(op)) return this.invoke(op, args[0] ?? null, scope);
    const dot = op.indexOf('.');
    const primitive = this.#env.primitives.get(dot < 0 ? op : op.slice(0, dot));
    if (primitive) return this.#primitive(primitive, dot < 0 ? undefined : op.slice(dot + 1), site, scope, args);
    return Promise.reject(new WorkflowError('INTERNAL_ERROR', `unknown workflow operation "${op}"`));
  }

  notify(op: string, site: string, scope: Scope, args: readonly JsonValue[]): void {
    if (op === 'phase') return notePhase(this.#record, this.#notes, scope, args, this.#invocations.breadcrumb(scope));
    if (op === 'log') return noteLog({ record: this.#record, journal: this.#journal, counter: this.#counter, replay: this.#replay, budget: this.#notes, logged: (note) => observeLog(this.#env.kernel.hooks.notes.logged, { run: this.#access.run, ...note }, this.#env.warn) }, site, scope, args);
    if (op === 'agent.create') return this.#agents.create(scope, args, site);
    throw new WorkflowError('INTERNAL_ERROR', `unknown workflow notification "${op}"`);
  }

  currentScope(base: Scope): Scope {
    const current = this.#hostScopes.getStore();
    return current && scopeKey(current).startsWith(scopeKey(base)) ? current : base;
  }

  runInScope<T>(scope: Scope, fn: () => T): T {
    return this.#hostScopes.run(scope, fn);
  }

  #observe(record: JournalRecord, replayed: boolean): void {
    const usage = record.kind === 'agent' ? { ...record.usage } : undefined;
    this.#env.kernel.hooks.journal.recorded.call({ run: this.#access.run, key: record.key, kind: record.kind, replayed, ...(usage ? { usage } : {}), access: this.#access });
  }

  // ---- core operations -------------------------------------------------

  #shell(site: string, scope: Scope, args: readonly JsonValue[]): Promise<JsonValue> {
    const { runDir } = this.#record;
    const { maxValueBytes } = this.#env.pool.limits;
    return this.#steps.step(scope, site, 'shell', replayShell, (key) => {
      const call = performShell(args, { key, scope, phase: this.#record.snapshot.phase, cwd: this.#scopeCwds.of(scope).cwd, runDir, maxValueBytes, signal: this.#abort.signal });
      // A stop or interrupt waits until the call's process group is gone.
      this.#shells.add(call);
      return call.finally(() => this.#shells.delete(call));
    });
  }

  invoke(name: string, input: JsonValue, scope: Scope, label?: string): Promise<JsonValue> {
    return invokeFunction({ registry: this.#env.registry, steps: this.#steps, invocations: this.#invocations, host: this }, name, input, scope, label);
  }

  hasPrimitive(name: string): boolean {
    return this.#env.primitives.has(name);
  }

  #primitive(primitive: PrimitiveDefinition, member: string | undefined, site: string, scope: Scope, args: readonly JsonValue[]): Promise<JsonValue> {
    const deps = { run: this.run, runDir: this.#record.runDir, phase: () => this.#record.snapshot.phase, signal: this.#abort.signal, access: this.#access, decisions: this.#decisions, scopeCwds: this.#scopeCwds };
    return performPrimitive(this.#steps, primitive, member, site, scope, args, deps);
  }
}
