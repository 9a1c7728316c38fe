/**
 * Standalone subagents over a real engine: a subagent is a durable kernel
 * run of a one-call script. Background and foreground delivery (exactly one
 * follow-up), inspection with progress and usage, steering the live session,
 * stop, retry of failed, stopped and interrupted subagents, the claim that
 * keeps them out of /workflow, and typed refusals that create nothing.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkflowError } from '../../../kernel/index.js';
import type { ExtensionContext } from '@earendil-works/pi-coding-agent';
import { interruptedSubagents, offerRetry } from '../../../plugins/subagents/recovery.js';
import { deferred, rejectionOf, waitFor } from '../../support/engine-harness.js';
import { scriptedDialogs } from '../host-command/dialogs.js';
import { createSubagentsFixture, type SubagentsFixture } from './fixture.js';

let f: SubagentsFixture;
beforeEach(async () => {
  f = await createSubagentsFixture();
});
afterEach(async () => {
  await f.close();
});

const runIds = (): string[] => f.engine.list(f.cwd).map((run) => run.runId);

describe('subagents_run', () => {
  it('starts a background subagent: the ID at once, the end as exactly one follow-up, the value through inspection', async () => {
    const started = await f.session.run({ prompt: 'Summarize the repo', label: 'scout' });
    expect(started).toEqual({ runId: expect.stringMatching(/^wf-/), state: 'running', delivery: 'follow-up' });
    await waitFor(() => f.followUps.length === 1);
    expect(f.followUps[0]).toMatchObject({
      customType: 'subagent-run',
      content: expect.stringContaining(`Subagent "scout" (${started.runId}) completed.`),
      details: { runId: started.runId, state: 'completed', value: 'done:Summarize the repo', inlined: true },
    });
    const inspected = f.session.inspect(started.runId);
    expect(inspected).toMatchObject({
      runId: started.runId,
      label: 'scout',
      state: 'completed',
      agentState: 'completed',
      attempts: 1,
      model: expect.any(String),
      tools: ['read', 'workflow_result'],
      progress: { turns: 0, toolCalls: 0, toolCallsByName: {} },
      usage: { inputTokens: 0, outputTokens: 0 },
      result: { inlined: true, value: 'done:Summarize the repo', resultBytes: expect.any(Number) },
      delivery: { mode: 'background', state: 'delivered' },
    });
    expect(f.session.list().map((record) => record.runId)).toEqual([started.runId]);
    // Nothing is delivered twice.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(f.followUps).toHaveLength(1);
  });

  it('stores the run like a workflow run: mode 0700, the one-call script with the options literal, the prompt in args, the plugin state', async () => {
    const started = await f.session.run({ prompt: 'Look', model: 'faux/x:low', tools: ['read'], retries: 1, role: 'scout' });
    await waitFor(() => f.followUps.length === 1);
    const runDir = f.engine.runDirectory(f.cwd, started.runId);
    expect(statSync(runDir).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(runDir, 'workflow.js'), 'utf8')).toContain('return await agent(args.prompt, {"model":"faux/x:low","tools":["read"],"role":"scout","retries":1});');
    const snapshot = JSON.parse(readFileSync(join(runDir, 'snapshot.json'), 'utf8')) as Record<string, unknown>;
    expect(snapshot).toMatchObject({ workflow: { name: 'subagent' }, args: { prompt: 'Look' }, plugins: { subagents: { format: 1, request: { model: 'faux/x:low', role: 'scout' } } } });
    expect(f.claimed(f.engine.status(f.cwd, started.runId))).toBe(true);
  });

  it('waits in the foreground and returns the value inline, with no follow-up; an outputSchema value comes back as JSON', async () => {
    const text = await f.session.run({ prompt: 'Name a color', foreground: true });
    expect(text).toMatchObject({ state: 'completed', value: 'done:Name a color', inlined: true });
    f.script = () => ({ color: 'blue' });
    const json = await f.session.run({ prompt: 'Name one', foreground: true, outputSchema: { type: 'object', required: ['color'], properties: { color: { type: 'string' } } } });
    expect(json).toMatchObject({ state: 'completed', value: { color: 'blue' } });
    expect(f.session.inspect(json.runId).delivery).toEqual({ mode: 'foreground', state: 'returned' });
    expect(f.followUps).toEqual([]);
  });

  it('a foreground wait the caller aborts returns the started shape; the end then arrives as the one follow-up', async () => {
    const release = deferred<void>();
    f.script = async () => {
      await release.promise;
      return { result: 'late' };
    };
    const abort = new AbortController();
    const waiting = f.session.run({ prompt: 'Slow', foreground: true }, { signal: abort.signal });
    await waitFor(() => f.session.list()[0]?.agentState === 'running');
    abort.abort();
    expect(await waiting).toMatchObject({ state: 'running', delivery: 'follow-up', message: expect.stringContaining('The wait was aborted') });
    release.resolve();
    await waitFor(() => f.followUps.length === 1);
    expect(f.followUps[0]?.details).toMatchObject({ state: 'completed', value: 'late' });
  });

  it('refuses bad options before any run exists: a __proto__ key, an outputSchema that does not compile, an invalid option', async () => {
    const proto = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}') as Record<string, unknown>;
    expect(await rejectionOf(f.session.run({ prompt: 'x', outputSchema: proto }))).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('"__proto__"') });
    expect(await rejectionOf(f.session.run({ prompt: 'x', outputSchema: { type: 'nonsense' } }))).toMatchObject({ code: 'INVALID_SCHEMA' });
    expect(await rejectionOf(f.session.run({ prompt: 'x', label: '   ' }))).toMatchObject({ code: 'INVALID_METADATA' });
    expect(await rejectionOf(f.session.run({ prompt: 'x', worktree: 'fix' }))).toMatchObject({ code: 'INVALID_SYNTAX', message: expect.stringContaining('withWorktree') });
    expect(runIds()).toEqual([]);
  });
});

describe('progress, steering and stop', () => {
  it('records turns, tool calls by name, the effective model and tools while the agent works; steers reach the live session', async () => {
    const seen = deferred<void>();
    f.script = async (agent) => {
      agent.emit({ type: 'turn_start' });
      agent.emit({ type: 'tool', name: 'read' });
      agent.emit({ type: 'tool', name: 'read' });
      agent.emit({ type: 'tool', name: 'bash' });
      agent.emit({ type: 'turn_end', stats: { inputTokens: 100, outputTokens: 10, costUsd: 0.01, turns: 1 } });
      seen.resolve();
      return { result: `steered:${await agent.nextSteer()}` };
    };
    const { runId } = await f.session.run({ prompt: 'Work' });
    await seen.promise;
    await waitFor(() => f.session.inspect(runId).progress.toolCalls === 3);
    expect(f.session.inspect(runId)).toMatchObject({
      state: 'running',
      agentState: 'running',
      executing: true,
      tools: ['read', 'workflow_result'],
      progress: { turns: 1, toolCalls: 3, toolCallsByName: { read: 2, bash: 1 }, lastTool: 'bash', lastActivity: expect.any(String) },
      usage: { inputTokens: 100, outputTokens: 10, costUsd: 0.01 },
    });
    expect(await f.session.steer(runId, 'use the tests')).toEqual({ steered: true, attempt: 1 });
    await waitFor(() => f.followUps.length === 1);
    expect(f.followUps[0]?.details).toMatchObject({ state: 'completed', value: 'steered:use the tests' });
    expect(await f.session.steer(runId, 'late')).toEqual({ steered: false, reason: 'not_running', state: 'completed' });
    expect(await f.session.steer('wf-000000000-00000000', 'x')).toEqual({ steered: false, reason: 'unknown_run' });
  });

  it('stops a running subagent at once, sends no follow-up, and retries it as a linked child with the same configuration', async () => {
    const hold = deferred<void>();
    f.script = async (agent) => {
      if (agent.prompt === 'Hold') await hold.promise;
      return { result: `ran:${agent.model}` };
    };
    const { runId } = await f.session.run({ prompt: 'Hold', model: 'faux/m:high' });
    await waitFor(() => f.session.live.get(runId) !== undefined);
    expect(await f.session.stop(runId)).toEqual({ stopped: true });
    expect(f.session.inspect(runId)).toMatchObject({ state: 'stopped', agentState: 'cancelled' });
    expect(await f.session.stop(runId)).toEqual({ stopped: false, reason: 'already_terminal' });
    expect(f.session.live.get(runId)).toBeUndefined();
    hold.resolve();
    const retried = await f.session.retry(runId, { foreground: true });
    expect(retried).toMatchObject({ state: 'completed', value: 'ran:faux/m:high', parentRunId: runId });
    expect(f.session.inspect(retried.runId)).toMatchObject({ parentRunId: runId, state: 'completed' });
    expect(f.session.inspect(runId).state).toBe('stopped');
    expect(f.followUps).toEqual([]);
  });

  it('retries a failed subagent (its failure was delivered once) and counts attempts of per-agent retries', async () => {
    let calls = 0;
    f.script = () => {
      calls += 1;
      if (calls <= 2) throw new Error(`boom ${calls}`);
      return { result: 'fixed' };
    };
    const { runId } = await f.session.run({ prompt: 'Flaky', retries: 1 });
    await waitFor(() => f.followUps.length === 1);
    expect(f.followUps[0]?.details).toMatchObject({ runId, state: 'failed', error: { code: 'AGENT_FAILED' } });
    expect(f.session.inspect(runId)).toMatchObject({ state: 'failed', attempts: 2, error: { code: 'AGENT_FAILED' } });
    const child = await f.session.retry(runId, { expectedState: 'failed' });
    expect(child).toMatchObject({ state: 'running', delivery: 'follow-up', parentRunId: runId });
    await waitFor(() => f.followUps.length === 2);
    expect(f.followUps[1]?.details).toMatchObject({ runId: child.runId, state: 'completed', value: 'fixed' });
  });

  it('a subagent whose host died is interrupted for the next session, and retry continues the same run', async () => {
    const hold = deferred<void>();
    f.script = async (agent) => {
      if (agent.prompt === 'Long') await hold.promise;
      return { result: 'finished' };
    };
    const { runId } = await f.session.run({ prompt: 'Long' });
    await waitFor(() => f.session.live.get(runId) !== undefined);
    await f.restart();
    f.script = () => ({ result: 'finished after restart' });
    expect(f.session.list()).toMatchObject([{ runId, state: 'interrupted', executing: false }]);
    const resumed = await f.session.retry(runId, { foreground: true });
    expect(resumed).toMatchObject({ runId, state: 'completed', value: 'finished after restart' });
    expect(resumed).not.toHaveProperty('parentRunId');
    expect(runIds()).toEqual([runId]);
    hold.resolve();
  });

  it('offers each interrupted subagent for retry at session start; a confirmed one continues and reports by follow-up', async () => {
    f.script = () => new Promise(() => undefined);
    const first = await f.session.run({ prompt: 'One', label: 'one' });
    const second = await f.session.run({ prompt: 'Two', label: 'two' });
    await waitFor(() => f.session.live.get(first.runId) !== undefined && f.session.live.get(second.runId) !== undefined);
    await f.restart();
    f.script = () => ({ result: 'again' });
    const interrupted = interruptedSubagents(f.session);
    expect(interrupted.map((entry) => entry.label).sort()).toEqual(['one', 'two']);
    const ui = scriptedDialogs([{ confirm: false }, { confirm: true }]);
    await offerRetry(f.session, ui as unknown as ExtensionContext['ui'], interrupted);
    await waitFor(() => f.followUps.length === 1);
    const [declined, confirmed] = interrupted;
    expect(f.followUps[0]?.details).toMatchObject({ runId: confirmed?.runId, state: 'completed', value: 'again' });
    expect(f.session.inspect(declined?.runId ?? '').state).toBe('interrupted');
  });

  it('refuses what cannot be retried, and answers for this session\'s subagents only', async () => {
    const done = await f.session.run({ prompt: 'Quick', foreground: true });
    expect(await rejectionOf(f.session.retry(done.runId))).toMatchObject({ code: 'RESUME_INCOMPATIBLE', message: expect.stringContaining('there is nothing to retry') });
    expect(await rejectionOf(f.session.retry(done.runId, { budget: { tokens: { hard: 1 } } }))).toMatchObject({ code: 'INVALID_METADATA' });
    // A workflow run of the same engine is not a subagent and stays the host's.
    const workflow = await f.engine.launch({ name: 'plain', cwd: f.cwd, script: 'return 1;' });
    await workflow.outcome;
    expect(f.claimed(f.engine.status(f.cwd, workflow.runId))).toBe(false);
    expect(() => f.session.inspect(workflow.runId)).toThrow(WorkflowError);
    expect(await f.session.stop(workflow.runId)).toEqual({ stopped: false, reason: 'unknown_run' });
    expect(await rejectionOf(f.session.retry('wf-000000000-00000000'))).toMatchObject({ code: 'RUN_NOT_FOUND' });
    expect(f.session.list().map((record) => record.runId)).toEqual([done.runId]);
    expect(readdirSync(join(f.root, 'projects')).length).toBe(1);
  });
});
