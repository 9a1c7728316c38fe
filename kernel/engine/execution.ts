/**
 * One execution segment of a run: a fresh sandbox realm evaluating the
 * script, every effect keyed structurally, replayed from the journal when it
 * already completed, journaled once when it completes now. A segment ends in
 * a terminal state, `paused` or `interrupted`; resuming starts a new segment.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { WorkflowError, isWorkflowError, messageOf } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { Kernel } from '../kernel.js';
import type { WorkflowRegistryApi } from '../registry/index.js';
import type { PrimitiveContext, PrimitiveDefinition, DecisionRequest } from '../contracts/primitive.js';
import type { WorkflowRunContext } from '../contracts/function-context.js';
import type { AgentCallOptions } from '../contracts/agent-options.js';
import type { WorkflowSession } from '../contracts/transport.js';
import { writeEvidence, writeResult, type Journal } from '../store/index.js';
import type { SandboxCall, SandboxPool, ScriptExecution } from '../sandbox/pool.js';
import type { GlobalSpec } from '../sandbox/protocol.js';
import { JOURNAL_VERSION, type AgentUsage, type JournalRecord } from './journal-record.js';
import { OccurrenceCounter, scopeKey, type Scope } from './keys.js';
import type { RunRecord } from './run-record.js';
import { appendCallRecord, appendRunEvent, LOG_LIMIT_BYTES, prefix, RECORDED_PREFIX_BYTES } from './run-log.js';
import { parseShellArgs, runShell } from './ops/shell.js';
import { parseAgentArgs } from './ops/agent-options.js';
import { runRecorded, type AgentRunEnv } from './ops/agent-runner.js';
import { thawConfiguration, type FrozenAgentConfiguration } from './ops/agent-config.js';
import { admit, Slots } from './scheduler.js';
import { createFunctionContext, type FunctionHost } from './ops/function-context.js';
import { deepFreeze } from '../json.js';
import type { RunState } from '../states.js';
import type { Segment } from './segment.js';

export interface ExecutionEnv {
  readonly kernel: Kernel;
  readonly pool: SandboxPool;
  readonly registry: WorkflowRegistryApi;
  readonly primitives: ReadonlyMap<string, PrimitiveDefinition>;
  readonly agentDir: string;
  readonly projectTrusted: boolean;
  readonly extensionSettings: Readonly<Record<string, JsonValue>>;
  readonly siteGlobal: string;
  readonly segment: Segment;
  /** Per-run active-agent limit (1 to 16). */
  readonly concurrency: number;
  /** The session-wide active-agent ceiling. */
  readonly agentSlots: Slots;
}

export type SegmentOutcome = 'completed' | 'failed' | 'stopped' | 'paused' | 'interrupted';

type RecordBody = JournalRecord extends infer R ? (R extends JournalRecord ? Omit<R, 'v' | 'key' | 'at'> : never) : never;

interface HandleState {
  readonly name: string;
  readonly scope: Scope;
  readonly options: AgentCallOptions;
  readonly error?: WorkflowError;
  busy: boolean;
  turns: number;
}

const SEND_OPTIONS = new Set(['outputSchema', 'timeoutMs']);
const RESERVED_HANDLE_PREFIX = 'function-handle/';

export class RunExecution implements FunctionHost {
  readonly finished: Promise<SegmentOutcome>;
  readonly run: WorkflowRunContext;
  #settle!: (outcome: SegmentOutcome) => void;
  readonly #env: ExecutionEnv;
  readonly #record: RunRecord;
  readonly #journal: Journal;
  readonly #replay: ReadonlyMap<string, JournalRecord>;
  readonly #counter = new OccurrenceCounter();
  readonly #functionCounts = new Map<string, number>();
  /** Display labels given to `invoke`, by the scope key of the invocation. */
  readonly #labels = new Map<string, string>();
  readonly #abort = new AbortController();
  readonly #hostScopes = new AsyncLocalStorage<Scope>();
  readonly #handles = new Map<string, HandleState>();
  /** Live sessions of named handles, so every send continues the transcript. */
  readonly #handleSessions = new Map<string, WorkflowSession>();
  readonly #decisions = new Map<string, (approved: boolean) => void>();
  readonly #onEnd: () => void;
  readonly #runSlots: Slots;
  #script: ScriptExecution | undefined;
  #inflight = 0;
  #ended = false;
  /** Set when stop or interrupt began: the script's own ending no longer decides the outcome. */
  #closing = false;
  #resumeWaiters: (() => void)[] = [];

  constructor(env: ExecutionEnv, record: RunRecord, journal: Journal, replay: ReadonlyMap<string, JournalRecord>, onEnd: () => void) {
    this.#env = env;
    this.#record = record;
    this.#journal = journal;
    this.#replay = replay;
    this.#onEnd = onEnd;
    this.#runSlots = new Slots(env.concurrency);
    const { runId, sessionId, cwd, workflow, args } = record.snapshot;
    this.run = Object.freeze({ runId, sessionId, cwd, workflow: Object.freeze({ ...workflow }), args: deepFreeze(structuredClone(args)), signal: this.#abort.signal });
    this.finished = new Promise((resolve) => (this.#settle = resolve));
  }

  get state(): RunState {
    return this.#record.snapshot.state;
  }

  get settings(): Readonly<Record<string, JsonValue>> {
    return this.#env.extensionSettings;
  }

  start(program: string): void {
    const globals: GlobalSpec[] = [
      { name: 'agent', kind: 'agent' },
      { name: 'shell', kind: 'effect' },
      { name: 'phase', kind: 'notify' },
      { name: 'log', kind: 'notify' },
      ...[...this.#env.registry.functions().keys()].map((name): GlobalSpec => ({ name, kind: 'effect' })),
      ...[...this.#env.primitives.values()].map((primitive): GlobalSpec => ({ name: primitive.name, kind: primitive.kind })),
    ];
    this.#script = this.#env.pool.run(
      { program, args: JSON.stringify(this.#record.snapshot.args), globals, siteGlobal: this.#env.siteGlobal },
      {
        call: async (call) => JSON.stringify(await this.perform(call.op, call.site, call.scope, JSON.parse(call.args) as JsonValue[])),
        notify: (call) => this.notify(call.op, call.site, call.scope, JSON.parse(call.args) as JsonValue[]),
      },
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
    for (const session of this.#handleSessions.values()) void session.dispose();
    this.#handleSessions.clear();
    try {
      persist();
    } finally {
      this.#journal.close();
      this.#onEnd();
      this.#settle(outcome);
    }
  }

  #complete(valueText: string): void {
    if (this.#closing) return;
    this.#end('completed', () => {
      const written = writeResult(this.#record.runDir, JSON.parse(valueText) as unknown);
      this.#record.transition('completed', (draft) => {
        draft.result = { path: written.path, bytes: written.bytes };
      });
    });
  }

  #failWith(error: unknown): void {
    if (this.#closing) return;
    const failure = isWorkflowError(error) ? error : new WorkflowError('INTERNAL_ERROR', messageOf(error));
    this.#end('failed', () => this.#record.fail(failure.toJSON() as { code: string; message: string }));
  }

  /** Immediate and irreversible: cancel everything in flight, then persist. */
  async stop(): Promise<void> {
    if (this.#ended || this.#closing) return;
    this.#closing = true;
    this.#abort.abort();
    await this.#script?.terminate();
    this.#end('stopped', () => this.#record.transition('stopped'));
  }

  /** The host is going away (session end): the run can be resumed later. */
  async interrupt(): Promise<void> {
    if (this.#ended || this.#closing) return;
    this.#closing = true;
    this.#abort.abort();
    await this.#script?.terminate();
    this.#end('interrupted', () => this.#record.transition('interrupted'));
  }

  /** Cooperative: no new operation starts; the run is paused once active ones finish. */
  pause(): void {
    if (this.#ended || this.#record.snapshot.state === 'pausing') return;
    this.#record.transition('pausing');
    this.#maybeFinishPause();
  }

  cancelPause(): void {
    if (this.#ended || this.#record.snapshot.state !== 'pausing') return;
    this.#record.transition(this.#decisions.size > 0 ? 'awaiting_input' : 'running');
    for (const wake of this.#resumeWaiters.splice(0)) wake();
  }

  #maybeFinishPause(): void {
    if (this.#ended || this.#inflight > 0 || this.#record.snapshot.state !== 'pausing') return;
    this.#end('paused', () => this.#record.transition('paused'));
  }

  async #gate(): Promise<void> {
    while (this.#record.snapshot.state === 'pausing') await new Promise<void>((resolve) => this.#resumeWaiters.push(resolve));
    this.#assertLive();
  }

  #assertLive(): void {
    if (this.#ended) throw new WorkflowError('CANCELLED', 'the run is no longer executing');
  }

  respond(name: string, approved: boolean): boolean {
    const resolve = this.#decisions.get(name);
    if (!resolve) return false;
    this.#decisions.delete(name);
    resolve(approved);
    return true;
  }

  // ---- dispatch --------------------------------------------------------

  perform(op: string, site: string, scope: Scope, args: readonly JsonValue[]): Promise<JsonValue> {
    if (op === 'shell') return this.#shell(site, scope, args);
    if (op === 'agent') return this.#agent(site, scope, args);
    if (op === 'agent.send') return this.#send(site, scope, args);
    if (this.#env.registry.getFunction(op)) return this.invoke(op, args[0] ?? null, scope);
    const dot = op.indexOf('.');
    const primitive = this.#env.primitives.get(dot < 0 ? op : op.slice(0, dot));
    if (primitive) return this.#primitive(primitive, dot < 0 ? undefined : op.slice(dot + 1), site, scope, args);
    return Promise.reject(new WorkflowError('INTERNAL_ERROR', `unknown workflow operation "${op}"`));
  }

  notify(op: string, site: string, scope: Scope, args: readonly JsonValue[]): void {
    if (op === 'phase') return this.#phase(scope, args);
    if (op === 'log') return this.#log(site, scope, args);
    if (op === 'agent.create') return this.#create(scope, args);
    throw new WorkflowError('INTERNAL_ERROR', `unknown workflow notification "${op}"`);
  }

  currentScope(base: Scope): Scope {
    const current = this.#hostScopes.getStore();
    return current && scopeKey(current).startsWith(scopeKey(base)) ? current : base;
  }

  runInScope<T>(scope: Scope, fn: () => T): T {
    return this.#hostScopes.run(scope, fn);
  }

  /** Runs one step: replay it when journaled, else perform it and journal the result. */
  async #step<T extends JsonValue>(
    scope: Scope,
    site: string,
    what: string,
    replay: (record: JournalRecord) => T,
    perform: (key: string, occurrence: number) => Promise<{ value: T; body: RecordBody }>,
  ): Promise<T> {
    const claim = this.#counter.claim(scope, site, what);
    try {
      const past = this.#replay.get(claim.key);
      if (past) {
        const value = replay(past);
        this.#observe(past, true);
        return value;
      }
      await this.#gate();
      this.#inflight += 1;
      try {
        const { value, body } = await perform(claim.key, claim.occurrence);
        this.#assertLive();
        const record = { v: JOURNAL_VERSION, key: claim.key, at: new Date().toISOString(), ...body } as JournalRecord;
        this.#journal.append(record as unknown as Parameters<Journal['append']>[0]);
        this.#observe(record, false);
        return value;
      } finally {
        this.#inflight -= 1;
        this.#maybeFinishPause();
      }
    } finally {
      claim.release();
    }
  }

  #observe(record: JournalRecord, replayed: boolean): void {
    const { runId, sessionId, cwd } = this.#record.snapshot;
    const usage = record.kind === 'agent' ? { ...record.usage } : undefined;
    this.#env.kernel.hooks.journal.recorded.call({ run: { runId, sessionId, cwd }, key: record.key, kind: record.kind, replayed, ...(usage ? { usage } : {}) });
  }

  #mismatch(record: JournalRecord, expected: string): never {
    throw new WorkflowError('RESUME_INCOMPATIBLE', `journal entry ${record.key} is a ${record.kind} record, but the script now performs ${expected} there`, { key: record.key });
  }

  // ---- core operations -------------------------------------------------

  #shell(site: string, scope: Scope, args: readonly JsonValue[]): Promise<JsonValue> {
    const request = parseShellArgs(args);
    return this.#step(
      scope,
      site,
      'shell',
      (record) => (record.kind === 'shell' ? record.value : this.#mismatch(record, 'shell')),
      async (key) => {
        const startedAt = new Date().toISOString();
        const metadata = {
          key,
          op: 'shell',
          path: [...scope],
          phase: this.#record.snapshot.phase ?? null,
          startedAt,
          command: prefix(request.command, RECORDED_PREFIX_BYTES),
          env: Object.keys(request.env ?? {}),
          timeoutMs: request.timeoutMs ?? null,
        };
        try {
          const value = await runShell(request, this.#record.snapshot.cwd, this.#abort.signal);
          const size = Buffer.byteLength(JSON.stringify(value));
          if (size > this.#env.pool.limits.maxValueBytes) {
            throw new WorkflowError('RPC_LIMIT_EXCEEDED', `shell output of ${size} bytes exceeds the ${this.#env.pool.limits.maxValueBytes}-byte RPC limit`);
          }
          appendCallRecord(this.#record.runDir, { ...metadata, endedAt: new Date().toISOString(), status: 'completed', exitCode: value.exitCode, stdout: prefix(value.stdout, RECORDED_PREFIX_BYTES), stderr: prefix(value.stderr, RECORDED_PREFIX_BYTES) });
          return { value: { ...value }, body: { kind: 'shell', value } };
        } catch (error) {
          const failure = isWorkflowError(error) ? error : new WorkflowError('SHELL_FAILED', messageOf(error));
          appendCallRecord(this.#record.runDir, { ...metadata, endedAt: new Date().toISOString(), status: 'failed', code: failure.code, error: prefix(failure.message, RECORDED_PREFIX_BYTES) });
          throw failure;
        }
      },
    );
  }

  /**
   * Registered-function breadcrumbs of a scope: the first call of a function
   * is unsuffixed, later ones `#2`, `#3`; an invoke label replaces the name.
   */
  #breadcrumb(scope: Scope): string[] {
    return scope.flatMap((segment, index) => {
      const match = /^fn:([^#]+)(#\d+)?$/.exec(segment);
      if (!match) return [];
      return [`${this.#labels.get(scopeKey(scope.slice(0, index + 1))) ?? match[1]}${match[2] ?? ''}`];
    });
  }

  /**
   * The runner's view of this run for one agent. A nested child (`parentId`)
   * keeps its prepared configuration in memory only: it is reused by its own
   * retries, and a rerun parent prepares its children afresh.
   */
  #agentEnv(agentId: string, path: readonly string[], label: string, handle: boolean, parentId?: string): AgentRunEnv {
    const record = this.#record;
    const breadcrumb = this.#breadcrumb(path);
    const childConfigs = new Map<string, FrozenAgentConfiguration>();
    const summary = (label: string, attempts: number, usage: AgentUsage) => ({
      id: agentId,
      label,
      path: [...path],
      breadcrumb,
      ...(parentId === undefined ? {} : { parentId }),
      attempts,
      usage,
      lastActivity: new Date().toISOString(),
    });
    let current = { label, attempts: 0, usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 } as AgentUsage };
    record.setAgent({ ...summary(label, 0, current.usage), state: 'queued' });
    return {
      kernel: this.#env.kernel,
      segment: this.#env.segment,
      run: this.run,
      runDir: record.runDir,
      agentDir: this.#env.agentDir,
      projectTrusted: this.#env.projectTrusted,
      settings: this.#env.extensionSettings,
      frozen: (key) => {
        if (parentId !== undefined) return childConfigs.get(key);
        const stored = record.snapshot.agentConfigurations[key];
        return stored === undefined ? undefined : thawConfiguration(stored, key);
      },
      freeze: (key, config) => {
        if (parentId !== undefined) return void childConfigs.set(key, config);
        record.update((draft) => {
          draft.agentConfigurations = { ...draft.agentConfigurations, [key]: config as unknown as JsonValue };
        });
      },
      admit: (signal) => admit(this.#runSlots, this.#env.agentSlots, signal),
      onAttempt: (attempt, label, usage) => {
        current = { label, attempts: attempt, usage };
        if (attempt > 1) record.setAgent({ ...summary(label, attempt, usage), state: 'retrying' });
        record.setAgent({ ...summary(label, attempt, usage), state: 'running' });
      },
      onSession: (attempt, reference) =>
        record.update((draft) => {
          const previous = (draft.agentSessions[agentId] as JsonValue[] | undefined) ?? [];
          draft.agentSessions = { ...draft.agentSessions, [agentId]: [...previous, { attempt, ...reference }] };
        }),
      ...(handle ? { handleSessions: this.#handleSessions } : {}),
      forChild: (childId) => this.#agentEnv(childId, path, childId.slice(childId.lastIndexOf('/') + 1).replace(/#\d+$/, ''), false, agentId),
      waiting: (waiting) => {
        if (!this.#ended) record.setAgent({ ...summary(current.label, current.attempts, current.usage), state: waiting ? 'waiting_for_child' : 'running' });
      },
      finished: (state, usage) => {
        // A stopped run persisted its state already; its agents stay as they were.
        if (this.#ended) return;
        record.setAgent({ ...summary(current.label, Math.max(current.attempts, state === 'completed' ? 1 : 0), usage ?? current.usage), state });
      },
    };
  }

  #agentStep(site: string, scope: Scope, prompt: string, options: AgentCallOptions, handle?: { name: string; turn: number; configKey: string }): Promise<JsonValue> {
    return this.#step(
      scope,
      site,
      'agent',
      (record) => (record.kind === 'agent' ? record.value : this.#mismatch(record, 'agent')),
      async (key, occurrence) => {
        const label = options.label ?? handle?.name ?? options.model ?? 'agent';
        const identity = { structuralPath: [...scope], callSite: site, occurrence, ...(handle ? { handle: handle.name, turn: handle.turn } : {}) };
        const env = this.#agentEnv(key, scope, label, handle !== undefined);
        const { value, usage } = await runRecorded(env, { prompt, options, identity, configKey: handle?.configKey ?? key, agentId: key }, this.#abort.signal);
        return { value, body: { kind: 'agent', value, usage } };
      },
    );
  }

  #agent(site: string, scope: Scope, args: readonly JsonValue[]): Promise<JsonValue> {
    const { prompt, options } = parseAgentArgs(args);
    return this.#agentStep(site, scope, prompt, options);
  }

  #create(scope: Scope, args: readonly JsonValue[]): void {
    const options = (args[0] ?? {}) as AgentCallOptions & { name?: unknown };
    const name = String(options.name);
    const id = `${scopeKey(scope)}|${name}`;
    const { name: _name, ...rest } = options;
    let error: WorkflowError | undefined;
    if (name.startsWith(RESERVED_HANDLE_PREFIX)) error = new WorkflowError('INVALID_METADATA', `agent handle names starting with "${RESERVED_HANDLE_PREFIX}" are reserved`);
    else if (this.#handles.has(id)) error = new WorkflowError('INVALID_METADATA', `agent handle "${name}" is created twice in one scope`);
    else {
      try {
        parseAgentArgs(['-', rest], 'agent.create');
      } catch (invalid) {
        error = invalid as WorkflowError;
      }
    }
    const existing = this.#handles.get(id);
    if (existing && !error) return;
    this.#handles.set(id, { name, scope, options: rest as AgentCallOptions, ...(error ? { error } : {}), busy: false, turns: existing?.turns ?? 0 });
  }

  async #send(site: string, scope: Scope, args: readonly JsonValue[]): Promise<JsonValue> {
    const [descriptor, prompt, sendOptions] = args as [{ name: string; scope: string[] }, JsonValue, JsonValue];
    const handle = this.#handles.get(`${scopeKey(descriptor.scope)}|${descriptor.name}`);
    if (!handle) throw new WorkflowError('INVALID_METADATA', `agent handle "${descriptor.name}" does not exist`);
    if (handle.error) throw handle.error;
    if (scopeKey(scope) !== scopeKey(handle.scope)) {
      throw new WorkflowError('INVALID_METADATA', `agent handle "${handle.name}" must be sent to from the scope that created it, not from another parallel/pipeline branch or worktree`);
    }
    if (handle.busy) throw new WorkflowError('INVALID_METADATA', `agent handle "${handle.name}" is already running a turn; await each send`);
    if (sendOptions !== undefined && sendOptions !== null) {
      if (typeof sendOptions !== 'object' || Array.isArray(sendOptions)) throw new WorkflowError('INVALID_METADATA', 'send options must be an object');
      const extra = Object.keys(sendOptions).find((key) => !SEND_OPTIONS.has(key));
      if (extra) throw new WorkflowError('INVALID_METADATA', `send accepts only outputSchema and timeoutMs, not "${extra}"`);
    }
    const { prompt: text, options } = parseAgentArgs([prompt, { ...handle.options, ...((sendOptions ?? {}) as object) }], 'send');
    handle.busy = true;
    handle.turns += 1;
    try {
      return await this.#agentStep(`${site}@${handle.name}`, scope, text, options, { name: handle.name, turn: handle.turns, configKey: `${scopeKey(handle.scope)}|handle:${handle.name}` });
    } finally {
      handle.busy = false;
    }
  }

  #phase(scope: Scope, args: readonly JsonValue[]): void {
    const [name] = args;
    if (typeof name !== 'string' || name.trim() === '') throw new WorkflowError('INVALID_METADATA', 'phase needs a non-empty name');
    if (!this.#record.setPhase(name)) return;
    appendRunEvent(this.#record.runDir, { at: new Date().toISOString(), type: 'phase', phase: name, path: [...scope] });
  }

  #log(site: string, scope: Scope, args: readonly JsonValue[]): void {
    const [message] = args;
    if (typeof message !== 'string') throw new WorkflowError('INVALID_METADATA', 'log needs a message string');
    const claim = this.#counter.claim(scope, site, 'log');
    claim.release();
    if (this.#replay.has(claim.key)) return;
    appendRunEvent(this.#record.runDir, { at: new Date().toISOString(), type: 'log', message: prefix(message, LOG_LIMIT_BYTES), path: [...scope] });
    this.#journal.append({ v: JOURNAL_VERSION, key: claim.key, at: new Date().toISOString(), kind: 'log' });
  }

  invoke(name: string, input: JsonValue, scope: Scope, label?: string): Promise<JsonValue> {
    const registry = this.#env.registry;
    if (!registry.getFunction(name)) {
      return Promise.reject(new WorkflowError('MISSING_WORKFLOW', `no registered workflow function is named "${name}"`, { name }));
    }
    const counter = `${scopeKey(scope)}|${name}`;
    const count = (this.#functionCounts.get(counter) ?? 0) + 1;
    this.#functionCounts.set(counter, count);
    const segment = count === 1 ? `fn:${name}` : `fn:${name}#${count}`;
    if (label !== undefined) this.#labels.set(scopeKey([...scope, segment]), label);
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
        const context = createFunctionContext(this, fnScope, label);
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
    const what = member === undefined ? primitive.name : `${primitive.name}.${member}`;
    const context = (key: string): PrimitiveContext => ({
      run: { runId: this.run.runId, sessionId: this.run.sessionId, cwd: this.run.cwd, runDir: this.#record.runDir, workflowName: this.run.workflow.name },
      signal: this.#abort.signal,
      awaitDecision: (request) => this.#awaitDecision(key, request),
      writeEvidence: (text) => writeEvidence(this.#record.runDir, text),
    });
    const call = (key: string) => ({ name: primitive.name, ...(member === undefined ? {} : { member }), args, key, site, scope });
    return this.#step(
      scope,
      site,
      what,
      (record) => {
        if (record.kind !== 'primitive' || record.name !== what) return this.#mismatch(record, what);
        primitive.replay?.(record.value, call(record.key), context(record.key));
        return record.value;
      },
      async (key) => {
        const value = JSON.parse(JSON.stringify((await primitive.run(call(key), context(key))) ?? null)) as JsonValue;
        return { value, body: { kind: 'primitive', name: what, value } };
      },
    );
  }

  async #awaitDecision(key: string, request: DecisionRequest): Promise<boolean> {
    const known = this.#record.snapshot.checkpoints[request.name];
    if (known && known.key === key && known.state !== 'awaiting') return known.state === 'approved';
    if (this.#decisions.has(request.name)) throw new WorkflowError('INVALID_METADATA', `checkpoint "${request.name}" is already awaiting a decision`);
    this.#record.setCheckpoint(request.name, { state: 'awaiting', prompt: request.prompt, ...(request.context === undefined ? {} : { context: request.context }), key });
    if (this.#record.snapshot.state === 'running') this.#record.transition('awaiting_input');
    // A pending decision does not hold up a pause.
    this.#inflight -= 1;
    this.#maybeFinishPause();
    let approved: boolean;
    try {
      approved = await new Promise<boolean>((resolve, reject) => {
        this.#decisions.set(request.name, resolve);
        this.#abort.signal.addEventListener('abort', () => reject(new WorkflowError('CANCELLED', 'the run stopped while awaiting a decision')), { once: true });
      });
    } finally {
      this.#inflight += 1;
    }
    this.#assertLive();
    this.#record.setCheckpoint(request.name, { ...this.#record.snapshot.checkpoints[request.name]!, state: approved ? 'approved' : 'rejected' });
    if (this.#decisions.size === 0 && this.#record.snapshot.state === 'awaiting_input') this.#record.transition('running');
    return approved;
  }
}
