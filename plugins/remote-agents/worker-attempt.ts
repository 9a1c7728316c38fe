/**
 * One attempt on a worker: the same `AgentTransport` the host would use
 * locally (the Pi transport, handed in by `wfcli worker`) runs the frozen
 * configuration in a worktree at the base commit; each finished turn's
 * cumulative usage goes to the usage table (usage-store.ts: a host counts the
 * turns of an execution that died), and the outcome carries the result, usage,
 * the transcript and the agent's commit. A cancelled workflow (the run
 * stopped, the agent timed out) aborts the session.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { WorkflowError, isWorkflowError, messageOf, type AgentTransport, type AgentTransportContext, type JsonValue, type RunAccess, type SessionInput, type WorkflowSession } from '../../kernel/index.js';
import { ATTEMPT_FORMAT, MAX_TRANSCRIPT_BYTES, type AttemptOutcome, type AttemptRequest, type AttemptStats } from './attempt.js';
import { continuedSession, type ContinuedSession } from './worker-continuation.js';
import { proxyTools, type ProxyContext } from './worker-tools.js';
import { pushChanges, type AttemptWorktree } from './worker-git.js';
import type { WorktreePool } from './worktree-pool.js';

export interface AttemptRuntime {
  readonly transport: AgentTransport;
  /** The same transport resuming a session file instead of starting one: a handle's later turn. */
  readonly continueTransport?: (sessionFile: string) => AgentTransport;
  readonly repo: string;
  readonly remote: string;
  readonly worktrees: WorktreePool;
  readonly executor: string;
  /** Records an execution's cumulative usage after each finished turn, and whether its result was submitted by then. */
  progress(execution: string, stats: AttemptStats, submitted: boolean): Promise<void>;
  /** Settles when the attempt's workflow is cancelled. */
  cancelled(signal: AbortSignal): Promise<void>;
  /** Where the proxies of the attempt's host tools record their calls (worker-tools.ts). */
  readonly hostCalls?: Omit<ProxyContext, 'execution' | 'resources'>;
}

const ZERO: AttemptStats = { inputTokens: 0, outputTokens: 0, costUsd: 0, turns: 0 };

/** This execution's own usage: a resumed session's stats include the handle's earlier turns, which the host already charged. */
function since(stats: AttemptStats, baseline: AttemptStats): AttemptStats {
  const over = (a: number, b: number): number => Math.max(0, a - b);
  return { inputTokens: over(stats.inputTokens, baseline.inputTokens), outputTokens: over(stats.outputTokens, baseline.outputTokens), costUsd: over(stats.costUsd, baseline.costUsd), turns: over(stats.turns, baseline.turns) };
}

/** A worker runs no run of its own: plugin state and events belong to the host. */
function detachedAccess(request: AttemptRequest, cwd: string): RunAccess {
  const refuse = (): never => {
    throw new WorkflowError('AGENT_FAILED', 'run state is kept by the host, not by a remote worker');
  };
  return {
    run: { runId: request.runId, sessionId: 'remote-worker', cwd },
    runDir: cwd,
    workflowName: 'remote-attempt',
    pluginState: () => undefined,
    setPluginState: refuse,
    recordEvent: () => undefined,
    activeMs: () => 0,
  };
}

function failed(request: AttemptRequest, executor: string, error: unknown, extra: Partial<AttemptOutcome> = {}): AttemptOutcome {
  const code = isWorkflowError(error) ? error.code : 'AGENT_FAILED';
  return { format: ATTEMPT_FORMAT, status: 'failed', error: { code, message: messageOf(error).slice(0, 65_536) }, stats: ZERO, model: request.model, sessionId: 'none', transcript: '', executor, ...extra };
}

function transcriptOf(session: WorkflowSession): string {
  const file = session.reference['sessionFile'];
  if (typeof file !== 'string') return '';
  // A transcript past the boundary is cut at its last whole line: the host keeps a readable file.
  if (statSync(file).size <= MAX_TRANSCRIPT_BYTES) return readFileSync(file, 'utf8');
  const text = readFileSync(file, 'utf8').slice(0, MAX_TRANSCRIPT_BYTES);
  return text.slice(0, text.lastIndexOf('\n') + 1);
}

export async function runAttempt(request: AttemptRequest, runtime: AttemptRuntime): Promise<AttemptOutcome> {
  let worktree: AttemptWorktree | undefined;
  const abort = new AbortController();
  void runtime.cancelled(abort.signal).then(() => abort.abort(), () => undefined);
  let session: WorkflowSession | undefined;
  let continued: ContinuedSession | undefined;
  try {
    continued = continuedSession(request, runtime.worktrees.root);
    if (continued !== undefined && runtime.continueTransport === undefined) throw new WorkflowError('AGENT_FAILED', 'this worker cannot resume a session (a handle\'s later turn): update wfcli on the worker');
    const transport = continued === undefined ? runtime.transport : (runtime.continueTransport?.(continued.file) ?? runtime.transport);
    worktree = await runtime.worktrees.acquire(request);
    // The proxies exist before the session (they are its tools); a call needs the execution's key, known once it exists.
    let execution = '';
    const hostTools = request.hostTools ?? [];
    if (hostTools.length > 0 && runtime.hostCalls === undefined) throw new WorkflowError('AGENT_FAILED', 'this worker cannot offer host tools: update wfcli on the worker');
    const customTools = runtime.hostCalls === undefined ? [] : proxyTools(hostTools, { ...runtime.hostCalls, execution: () => execution, resources: () => session?.resources?.() });
    const input: SessionInput = {
      cwd: worktree.cwd,
      model: request.model,
      tools: request.tools,
      sessionLabel: request.label,
      settings: request.settings,
      options: request.outputSchema === undefined ? {} : { outputSchema: request.outputSchema },
      ...(request.systemPromptAppend === undefined ? {} : { systemPromptAppend: request.systemPromptAppend }),
      ...(customTools.length === 0 ? {} : { customTools }),
      ...(request.ceiling === undefined ? {} : { ceiling: request.ceiling }),
    };
    const context: AgentTransportContext = {
      run: { cwd: worktree.cwd, sessionId: 'remote-worker', runId: request.runId, workflow: { name: 'remote-attempt' }, args: null, signal: abort.signal },
      settings: request.settings,
      identity: request.identity,
      attempt: request.attempt,
      signal: abort.signal,
      access: detachedAccess(request, worktree.cwd),
      projectTrusted: request.projectTrusted,
      prepared: {
        model: request.model,
        tools: request.preparedTools,
        skills: request.skills,
        extensions: request.extensions,
        excludeTools: request.excludeTools,
        ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
        ...(request.systemPromptAppend === undefined ? {} : { systemPromptAppend: request.systemPromptAppend }),
        ...(request.contextFiles === undefined ? {} : { contextFiles: request.contextFiles }),
        ...(request.turnControl === undefined ? {} : { turnControl: request.turnControl }),
        ...(request.rootTools === undefined ? {} : { rootTools: request.rootTools }),
      },
    };
    session = await transport.createSession(input, context);
    const live = session;
    const baseline = live.stats();
    const native = (live.nativeSessionId ?? request.workflowId).replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 128);
    // A resumed session keeps the handle's Pi session ID: each execution of a later turn needs a key of its own in the usage tables.
    execution = request.continuation === undefined ? native : `${native}.${randomBytes(8).toString('hex')}`;
    let submitted: { value: JsonValue } | undefined;
    let writes = Promise.resolve();
    live.subscribe((progress) => {
      if (progress.type === 'result' && submitted === undefined) submitted = { value: progress.value };
      if (progress.type !== 'turn_end') return;
      const done = submitted !== undefined;
      const stats = since(progress.stats, baseline);
      writes = writes.then(() => runtime.progress(execution, stats, done)).catch(() => undefined);
    });
    const onAbort = (): void => void live.abort();
    abort.signal.addEventListener('abort', onAbort, { once: true });
    let error: unknown;
    try {
      await live.prompt(request.prompt, request.outputSchema === undefined ? {} : { outputSchema: request.outputSchema });
    } catch (thrown) {
      error = abort.signal.aborted ? new WorkflowError('CANCELLED', 'the remote attempt was cancelled') : thrown;
    } finally {
      abort.signal.removeEventListener('abort', onAbort);
    }
    await live.dispose();
    // The last turn's usage write and the git work go on at once: both must end before the outcome is returned.
    const [, commit] = await Promise.all([writes, error === undefined ? pushChanges(worktree, runtime.remote, request) : undefined]);
    const model = live.model?.() ?? request.model;
    const systemPrompt = live.systemPrompt?.();
    const base = { stats: since(live.stats(), baseline), model: model ?? '', sessionId: native, ...(execution === native ? {} : { execution }), transcript: transcriptOf(live), executor: runtime.executor, ...(systemPrompt === undefined ? {} : { systemPrompt }) };
    if (error !== undefined) return failed(request, runtime.executor, error, base);
    return { format: ATTEMPT_FORMAT, status: 'completed', ...base, ...(submitted === undefined ? {} : { submitted }), ...(commit === undefined ? {} : { commit }) };
  } catch (error) {
    await session?.dispose().catch(() => undefined);
    return failed(request, runtime.executor, error);
  } finally {
    abort.abort();
    continued?.remove();
    // The outcome does not wait for the worktree's cleaning: the pool cleans it before it is used again.
    worktree?.release();
  }
}
