/**
 * One execution segment of a run: a fresh sandbox realm evaluating the
 * script, every effect keyed structurally, replayed from the journal when it
 * already completed, journaled once when it completes now. A segment ends in
 * a terminal state, `budget_exhausted`, `paused` or `interrupted`; resuming starts a new segment.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { WorkflowError, isWorkflowError, messageOf } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { PrimitiveDefinition } from '../contracts/primitive.js';
import { primitiveStep } from './ops/primitives.js';
import { Decisions } from './decisions.js';
import { Invocations } from './invocations.js';
import type { WorkflowRunContext } from '../contracts/function-context.js';
import { writeResult, type Journal } from '../store/index.js';
import type { ScriptExecution } from '../sandbox/pool.js';
import { encodeJson } from '../json-encode.js';
import { recordOp, sandboxReplayTable } from './replay.js';
import { JOURNAL_VERSION, type JournalRecord } from './journal-record.js';
import { OccurrenceCounter, scopeKey, type Scope } from './keys.js';
import { callDigest, callPreview, nondeterministicReplay, type CallIdentity } from './call-digest.js';
import { sandboxHandlers, type Incoming } from './sandbox-bridge.js';
import { NoteBudget } from './ops/note-budget.js';
import type { RunRecord } from './run-record.js';
import { parseShellArgs, recordedShell } from './ops/shell.js';
import { AgentOps } from './ops/agent-ops.js';
import { createFunctionContext, type FunctionHost } from './ops/function-context.js';
import { deepFreeze } from '../json.js';
import type { RunState } from '../states.js';
import { settleSegment } from './settle.js';
import { noteLog, notePhase } from './ops/notes.js';
import type { RunAccess } from '../contracts/run-access.js';
import { ActiveClock, createRunAccess } from './run-access.js';
import { ScopeCwds } from './scope-cwds.js';

import { scriptGlobals, type ExecutionEnv, type RecordBody, type SegmentOutcome } from './execution-types.js';

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
  #inflight = 0;
  /** The call `perform` is dispatching, read by its step: what it is, and its sandbox key. */
  #identity: CallIdentity | undefined;
  #incoming: Incoming | undefined;
  /** The next delivery position, and the results journaled for sandbox calls awaiting their reply. */
  #nextSeq: number;
  readonly #delivered = new Map<string, { readonly seq: number; readonly text: string }>();
  readonly #notes = new NoteBudget();
  #ended = false;
  /** Set when stop or interrupt began: the script's own ending no longer decides the outcome. */
  #closing = false;
  #resumeWaiters: (() => void)[] = [];

  constructor(env: ExecutionEnv, record: RunRecord, journal: Journal, replay: ReadonlyMap<string, JournalRecord>, nextSeq: number, onEnd: () => void) {
    this.#env = env;
    this.#nextSeq = nextSeq;
    this.#record = record;
    this.#journal = journal;
    this.#replay = replay;
    this.#onEnd = onEnd;
    this.#clock = new ActiveClock(record.snapshot.activeMs ?? 0);
    this.#access = createRunAccess(record, () => this.#clock.ms());
    this.#scopeCwds = new ScopeCwds(record.snapshot.cwd);
    this.#decisions = new Decisions(record, this.#abort.signal, {
      waitStarted: () => {
        this.#clock.waitStarted();
        this.#inflight -= 1;
        this.#maybeFinishPause();
      },
      waitEnded: () => {
        this.#clock.waitEnded();
        this.#inflight += 1;
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
    };
    this.#agents = new AgentOps(agentDeps, (scope, site, perform) =>
      this.#step(
        scope,
        site,
        'agent',
        (past) => (past.kind === 'agent' ? past.value : this.#mismatch(past, 'agent')),
        async (key, occurrence) => {
          const { value, usage } = await perform(key, occurrence);
          return { value, body: { kind: 'agent', value, usage } };
        },
      ),
    );
  }

  get state(): RunState {
    return this.#record.snapshot.state;
  }

  get settings(): Readonly<Record<string, JsonValue>> {
    return this.#env.extensionSettings;
  }

  start(program: string, sites: Readonly<Record<string, string>>): void {
    const globals = scriptGlobals(this.#env.registry, this.#env.primitives);
    const handlers = sandboxHandlers({
      replay: this.#replay,
      maxValueBytes: this.#env.pool.limits.maxValueBytes,
      ending: () => this.#ended || this.#closing,
      perform: (op, site, scope, args, incoming) => this.perform(op, site, scope, args, incoming),
      notify: (op, site, scope, args) => this.notify(op, site, scope, args),
      append: (entry) => this.#journal.append(entry as unknown as Parameters<Journal['append']>[0]),
      takeSeq: () => this.#nextSeq++,
      takeDelivered: (key) => {
        const delivered = this.#delivered.get(key);
        this.#delivered.delete(key);
        return delivered;
      },
      fail: (error) => this.#failWith(error),
    });
    this.#script = this.#env.pool.run(
      {
        program,
        sites,
        marker: this.#env.siteGlobal,
        args: this.#record.snapshot.args,
        globals,
        replay: sandboxReplayTable(this.#replay, this.#env.registry, this.#env.primitives),
      },
      handlers,
    );
    this.#script.result.then(
      (value) => this.#complete(value),
      (error: unknown) => this.#failWith(error),
    );
  }

  // ---- lifecycle -------------------------------------------------------

  #end(outcome: SegmentOutcome, persist: () => void): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#abort.abort();
    void this.#script?.terminate();
    this.#agents.dispose();
    try {
      persist();
    } finally {
      this.#journal.close();
      this.#onEnd();
      this.#settle(outcome);
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
    let settled = settleSegment(this.#env.kernel, this.#access, ended);
    if (settled.state === 'completed') {
      // A result the store cannot write fails the run; it never leaves it running.
      let written: ReturnType<typeof writeResult> | undefined;
      try {
        written = writeResult(this.#record.runDir, value ?? null);
      } catch (error) {
        settled = { state: 'failed', error: isWorkflowError(error) ? error : new WorkflowError('INTERNAL_ERROR', messageOf(error)) };
      }
      if (written !== undefined) {
        const result = { path: written.path, bytes: written.bytes };
        return this.#end('completed', () =>
          this.#record.transition('completed', (draft) => {
            draft.result = result;
            this.#stamp(draft);
          }),
        );
      }
    }
    const failed = settled as Exclude<typeof settled, { state: 'completed' }>;
    this.#end(failed.state, () =>
      this.#record.transition(failed.state, (draft) => {
        draft.failure = failed.error.toJSON() as { code: string; message: string };
        this.#stamp(draft);
      }),
    );
  }

  /** Immediate and irreversible: cancel everything in flight, then persist. */
  async stop(): Promise<void> {
    if (this.#ended || this.#closing) return;
    this.#closing = true;
    this.#abort.abort();
    await this.#script?.terminate();
    this.#end('stopped', () => this.#record.transition('stopped', this.#stamp));
  }

  /** The host is going away (session end): the run can be resumed later. */
  async interrupt(): Promise<void> {
    if (this.#ended || this.#closing) return;
    this.#closing = true;
    this.#abort.abort();
    await this.#script?.terminate();
    this.#end('interrupted', () => this.#record.transition('interrupted', this.#stamp));
  }

  /** Cooperative: no new operation starts; the run is paused once active ones finish. */
  pause(): void {
    if (this.#ended || this.#record.snapshot.state === 'pausing') return;
    this.#record.transition('pausing');
    this.#maybeFinishPause();
  }

  cancelPause(): void {
    if (this.#ended || this.#record.snapshot.state !== 'pausing') return;
    this.#record.transition(this.#decisions.pending > 0 ? 'awaiting_input' : 'running');
    for (const wake of this.#resumeWaiters.splice(0)) wake();
  }

  #maybeFinishPause(): void {
    if (this.#ended || this.#inflight > 0 || this.#record.snapshot.state !== 'pausing') return;
    this.#end('paused', () => this.#record.transition('paused', this.#stamp));
  }

  async #gate(): Promise<void> {
    while (this.#record.snapshot.state === 'pausing') await new Promise<void>((resolve) => this.#resumeWaiters.push(resolve));
    this.#assertLive();
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
    this.#identity = { op, args };
    this.#incoming = incoming;
    try {
      return this.#dispatch(op, site, scope, args);
    } catch (error) {
      return Promise.reject(error);
    } finally {
      this.#identity = undefined;
      this.#incoming = undefined;
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
    if (op === 'phase') return notePhase(this.#record, this.#notes, scope, args);
    if (op === 'log') return noteLog({ record: this.#record, journal: this.#journal, counter: this.#counter, replay: this.#replay, budget: this.#notes }, site, scope, args);
    if (op === 'agent.create') return this.#agents.create(scope, args);
    throw new WorkflowError('INTERNAL_ERROR', `unknown workflow notification "${op}"`);
  }

  currentScope(base: Scope): Scope {
    const current = this.#hostScopes.getStore();
    return current && scopeKey(current).startsWith(scopeKey(base)) ? current : base;
  }

  runInScope<T>(scope: Scope, fn: () => T): T {
    return this.#hostScopes.run(scope, fn);
  }

  /** A replay that diverged from the journal fails the run at once, whatever the script or a function catches. */
  #diverge(error: WorkflowError): Promise<never> {
    this.#failWith(error);
    return Promise.reject(error);
  }

  /**
   * Runs one step: replay it when journaled (after checking that the journal
   * recorded this very call), else perform it and journal the result. The
   * part before `perform` runs synchronously, so a divergence found while
   * booking a sandbox replay ends the run before any later message is read.
   */
  #step<T extends JsonValue>(
    scope: Scope,
    site: string,
    what: string,
    replay: (record: JournalRecord) => T,
    perform: (key: string, occurrence: number) => Promise<{ value: T; body: RecordBody }>,
  ): Promise<T> {
    const incoming = this.#incoming;
    const identity = this.#identity ?? { op: what, args: [] };
    this.#incoming = undefined;
    this.#identity = undefined;
    let key: string;
    let occurrence: number;
    let release = (): void => undefined;
    if (incoming) {
      key = incoming.key;
      occurrence = Number(key.slice(key.lastIndexOf('#') + 1));
    } else {
      try {
        const claim = this.#counter.claim(scope, site, what);
        ({ key, occurrence } = claim);
        release = () => claim.release();
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const past = this.#replay.get(key);
    if (past === undefined || past.kind === 'log') {
      if (incoming?.replayed) {
        return this.#diverge(new WorkflowError('INTERNAL_ERROR', `replay diverged: the sandbox answered ${key} from the journal, but the host has no record for it`, { key }));
      }
      return this.#performStep(key, occurrence, identity, incoming !== undefined, perform, release);
    }
    release();
    if (past.digest !== undefined && past.digest !== callDigest(identity)) {
      return this.#diverge(nondeterministicReplay({ site, key, journaled: past.call ?? recordOp(past), now: identity }));
    }
    if (past.kind === 'failure') return Promise.reject(new WorkflowError(past.error.code as WorkflowError['code'], past.error.message, past.error.details));
    try {
      const value = replay(past);
      this.#observe(past, true);
      return Promise.resolve(value);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async #performStep<T extends JsonValue>(
    key: string,
    occurrence: number,
    identity: CallIdentity,
    fromSandbox: boolean,
    perform: (key: string, occurrence: number) => Promise<{ value: T; body: RecordBody }>,
    release: () => void,
  ): Promise<T> {
    try {
      await this.#gate();
    } catch (error) {
      release();
      throw error;
    }
    this.#inflight += 1;
    try {
      const { value, body } = await perform(key, occurrence);
      this.#assertLive();
      // What the script receives must be JSON within the RPC limit: checked before it is journaled.
      let text: string | undefined;
      if (fromSandbox) {
        const encoded = encodeJson(value, { maxBytes: this.#env.pool.limits.maxValueBytes });
        if (!encoded.ok) throw new WorkflowError(encoded.failure.code, `The value of ${identity.op} ${encoded.failure.reason}`, { ...encoded.failure.details });
        text = encoded.text;
      }
      const seq = text === undefined ? undefined : this.#nextSeq++;
      const record = {
        v: JOURNAL_VERSION,
        key,
        at: new Date().toISOString(),
        op: identity.op,
        digest: callDigest(identity),
        call: callPreview(identity),
        ...(seq === undefined ? {} : { seq }),
        ...body,
      } as JournalRecord;
      this.#journal.append(record as unknown as Parameters<Journal['append']>[0]);
      if (seq !== undefined && text !== undefined) this.#delivered.set(key, { seq, text });
      this.#observe(record, false);
      return value;
    } finally {
      this.#inflight -= 1;
      release();
      this.#maybeFinishPause();
    }
  }

  #observe(record: JournalRecord, replayed: boolean): void {
    const usage = record.kind === 'agent' ? { ...record.usage } : undefined;
    this.#env.kernel.hooks.journal.recorded.call({ run: this.#access.run, key: record.key, kind: record.kind, replayed, ...(usage ? { usage } : {}), access: this.#access });
  }

  #mismatch(record: JournalRecord, expected: string): never {
    throw new WorkflowError('RESUME_INCOMPATIBLE', `journal entry ${record.key} is a ${record.kind} record, but the script now performs ${expected} there`, {
      key: record.key,
      reason: 'nondeterministic_replay',
    });
  }

  // ---- core operations -------------------------------------------------

  #shell(site: string, scope: Scope, args: readonly JsonValue[]): Promise<JsonValue> {
    return this.#step(
      scope,
      site,
      'shell',
      (record) => (record.kind === 'shell' ? record.value : this.#mismatch(record, 'shell')),
      async (key) => {
        // Parsed once the call holds its key: an invalid call still counts as an occurrence, as in the sandbox.
        const value = await recordedShell(parseShellArgs(args), {
          key,
          scope,
          phase: this.#record.snapshot.phase,
          cwd: this.#scopeCwds.of(scope).cwd,
          runDir: this.#record.runDir,
          maxValueBytes: this.#env.pool.limits.maxValueBytes,
          signal: this.#abort.signal,
        });
        return { value: { ...value }, body: { kind: 'shell', value } };
      },
    );
  }

  invoke(name: string, input: JsonValue, scope: Scope, label?: string): Promise<JsonValue> {
    const registry = this.#env.registry;
    if (!registry.getFunction(name)) {
      return Promise.reject(new WorkflowError('MISSING_WORKFLOW', `no registered workflow function is named "${name}"`, { name }));
    }
    // A call from the sandbox carries its invocation segment in its key (`<scope>|fn:<name>#<n>#0`).
    const keyed = this.#incoming?.key;
    const segment = keyed === undefined ? this.#invocations.next(scope, name, label) : keyed.slice(scopeKey(scope).length + 1, keyed.lastIndexOf('#'));
    this.#identity = { op: name, args: [input] };
    return this.#step(
      scope,
      segment,
      name,
      (record) => {
        if (record.kind !== 'function' || record.name !== name) return this.#mismatch(record, `function ${name}`);
        registry.assertFunctionOutput(name, record.value);
        return record.value;
      },
      async () => {
        registry.assertFunctionInput(name, input);
        const definition = registry.getFunction(name)!.definition;
        const fnScope = [...scope, segment];
        const context = createFunctionContext(this, fnScope);
        const output = (await this.runInScope(fnScope, () => definition.run(deepFreeze(structuredClone(input)) as Readonly<Record<string, JsonValue>>, context))) as JsonValue;
        registry.assertFunctionOutput(name, output);
        const value = JSON.parse(JSON.stringify(output ?? null)) as JsonValue;
        return { value, body: { kind: 'function', name, value } };
      },
    );
  }

  hasPrimitive(name: string): boolean {
    return this.#env.primitives.has(name);
  }

  #primitive(primitive: PrimitiveDefinition, member: string | undefined, site: string, scope: Scope, args: readonly JsonValue[]): Promise<JsonValue> {
    const deps = { run: this.run, runDir: this.#record.runDir, signal: this.#abort.signal, access: this.#access, decisions: this.#decisions, scopeCwds: this.#scopeCwds };
    const step = primitiveStep(primitive, member, site, scope, args, deps);
    return this.#step(
      scope,
      site,
      step.what,
      (record) => (record.kind === 'primitive' && record.name === step.what ? step.replay(record.key, record.value) : this.#mismatch(record, step.what)),
      async (key) => {
        const value = await step.perform(key);
        return { value, body: { kind: 'primitive', name: step.what, value } };
      },
    );
  }
}
