/**
 * The workflow tools' handlers over a real engine (echo transport) with small
 * doubles of Pi's API and context; every result is checked against the tool's
 * output schema and every failure against the error schema (host-fixture.ts).
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { budgetsPlugin } from '../../../plugins/budgets/index.js';
import { INLINE_RESULT_BYTES } from '../../../plugins/host/delivery.js';
import { FOLLOW_UP_MESSAGE_TYPE } from '../../../plugins/host/host-session.js';
import { catalogTool, respondTool, resumeTool, retryTool, statusTool, stopTool, workflowTool } from '../../../plugins/host/tools/index.js';
import { registerWorkflowExtension, resetWorkflowRegistry } from '../../../kernel/index.js';
import { gated, gateStarted, release, waitFor, writeGlobalSettings } from '../../support/engine-harness.js';
import { createHostFixture, fakeContext, toolError, type HostFixture } from './host-fixture.js';

let fx: HostFixture;
beforeEach(() => {
  fx = createHostFixture({ plugins: [budgetsPlugin] });
});
afterEach(async () => {
  await fx.close();
  resetWorkflowRegistry();
});

const launch = (params: Record<string, unknown>) => fx.call(workflowTool, { name: 'w', ...params });

describe('workflow', () => {
  it('runs in the background: returns the run ID at once and reports the end as exactly one follow-up', async () => {
    const next = fx.pi.nextMessage();
    const started = await launch({ script: 'return args.n * 2', args: { n: 21 } });
    expect(started).toEqual({ runId: expect.any(String), state: 'running', delivery: 'follow-up' });
    const sent = await next;
    expect(sent.options).toEqual({ deliverAs: 'followUp', triggerTurn: true });
    expect(sent.message.customType).toBe(FOLLOW_UP_MESSAGE_TYPE);
    expect(sent.message.details).toMatchObject({ runId: started['runId'], state: 'completed', value: 42, inlined: true });
    expect(sent.message.content).toContain(`Workflow run ${String(started['runId'])} (w) completed.`);
    await fx.call(statusTool, { runId: started['runId'] });
    expect(fx.pi.sent).toHaveLength(1);
    const status = await fx.call(statusTool, { runId: started['runId'] });
    expect(status['delivery']).toEqual({ mode: 'background', state: 'delivered' });
  });

  it('reports a background failure as the follow-up', async () => {
    const next = fx.pi.nextMessage();
    const { runId } = await launch({ script: 'throw new Error("boom")' });
    const sent = await next;
    expect(sent.message.details).toEqual({ runId, state: 'failed', error: { code: expect.any(String), message: expect.stringContaining('boom') } });
  });

  it('waits in the foreground and returns the value, the run ID and where it is stored', async () => {
    const result = await launch({ script: 'return await agent("hi")', foreground: true });
    expect(result).toEqual({ runId: expect.any(String), state: 'completed', value: 'echo:hi', inlined: true, resultPath: expect.stringMatching(/result\.json$/), resultBytes: expect.any(Number) });
    expect(fx.pi.sent).toEqual([]);
  });

  it('returns the completion descriptor for a result over 50 KiB', async () => {
    const result = await launch({ script: `return "x".repeat(${INLINE_RESULT_BYTES})`, foreground: true });
    expect(result).toEqual({ state: 'completed', runId: expect.any(String), resultPath: expect.any(String), resultBytes: statSync(String(result['resultPath'])).size, inlined: false });
    expect(result['resultBytes']).toBeGreaterThan(INLINE_RESULT_BYTES);
  });

  it('returns the descriptor when the main context has no room for the value', async () => {
    const full = fakeContext(fx.harness.cwd, { tokens: 120_000, contextWindow: 128_000, percent: 94 });
    const result = await fx.call(workflowTool, { name: 'w', script: 'return "a value"', foreground: true }, { ctx: full });
    expect(result['inlined']).toBe(false);
  });

  it('reads scriptPath from the project directory', async () => {
    mkdirSync(join(fx.harness.cwd, 'flows'));
    writeFileSync(join(fx.harness.cwd, 'flows', 'double.js'), 'return args * 2;\n');
    expect(await launch({ scriptPath: 'flows/double.js', args: 4, foreground: true })).toMatchObject({ value: 8 });
  });

  it('passes budget to the launch as a plugin option', async () => {
    const { runId } = await launch({ script: 'return 1', budget: { tokens: { hard: 1000 } }, foreground: true });
    const status = await fx.call(statusTool, { runId });
    expect(JSON.stringify(status['plugins'])).toContain('"hard":1000');
    const refused = await toolError(launch({ script: 'return 1', budget: { tokens: { soft: 5, hard: 2 } } }));
    expect(refused.code).toBe('INVALID_METADATA');
  });

  it('fails with UNKNOWN_TOOL before any agent runs or any run exists', async () => {
    fx.pi.activeTools.push('lint_tool');
    for (const [script, reason] of [
      ['await agent("a"); return await tools.nope({})', /no tool "nope" is active/],
      ['await agent("a"); return await tools.workflow_status({ runId: "x" })', /workflow and subagent tools cannot be called/],
      ['await agent("a"); return await tools.lint_tool({})', /only Pi's built-in tools/],
    ] as const) {
      const error = await toolError(launch({ script }));
      expect(error.code).toBe('UNKNOWN_TOOL');
      expect(error.message).toMatch(reason);
    }
    expect(fx.harness.calls).toEqual([]);
    expect(fx.harness.engine.list(fx.harness.cwd)).toEqual([]);
  });

  it('reports a thrown WorkflowError as an error whose text starts with the code and whose details carry it', async () => {
    const error = await toolError(launch({ script: 'return 1', scriptPath: 'x.js' }));
    expect(error).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringMatching(/^INVALID_METADATA: .*exactly one of script or scriptPath/) });
  });
});

describe('workflow_status and workflow_stop', () => {
  it('returns RUN_NOT_FOUND for missing, corrupt and foreign runs', async () => {
    expect((await toolError(fx.call(statusTool, { runId: 'nope' }))).code).toBe('RUN_NOT_FOUND');
    const { runId } = await launch({ script: 'return 1', foreground: true });
    fx.harness.writeSnapshot(fx.harness.runDir(String(runId)), (snapshot) => void (snapshot['state'] = 'bogus'));
    expect((await toolError(fx.call(statusTool, { runId }))).code).toBe('RUN_NOT_FOUND');
    const other = fx.harness.freshCwd();
    const foreign = await fx.harness.engine.launch({ name: 'x', cwd: other, script: 'return 1' });
    await foreign.outcome;
    expect((await toolError(fx.call(statusTool, { runId: foreign.runId }))).code).toBe('RUN_NOT_FOUND');
  });

  it('reports wall and active time: a waiting run\'s wall time runs on while its active time stands still', async () => {
    const { runId } = await launch({ script: 'await checkpoint({ name: "gate", prompt: "go?" }); return 1' });
    await waitFor(() => fx.harness.engine.status(fx.harness.cwd, String(runId)).state === 'awaiting_input');
    const first = (await fx.call(statusTool, { runId }))['time'] as { wallMs: number; activeMs: number };
    expect(first).toEqual({ wallMs: expect.any(Number), activeMs: expect.any(Number) });
    expect(first.activeMs).toBeLessThanOrEqual(first.wallMs);
    const createdAt = Date.parse(fx.harness.engine.status(fx.harness.cwd, String(runId)).createdAt);
    await waitFor(() => Date.now() - createdAt > first.wallMs + 20);
    const later = (await fx.call(statusTool, { runId }))['time'] as { wallMs: number; activeMs: number };
    expect(later.wallMs).toBeGreaterThan(first.wallMs);
    expect(later.activeMs).toBe(first.activeMs);
    await fx.call(stopTool, { runId });
    const stopped = fx.harness.engine.status(fx.harness.cwd, String(runId));
    const end = (await fx.call(statusTool, { runId }))['time'] as { wallMs: number };
    expect(end.wallMs).toBe(Date.parse(String(stopped.terminalAt)) - createdAt);
  });

  it('stops an active run once; then already_terminal; unknown_run for other sessions and IDs', async () => {
    const { runId } = await launch({ script: 'await checkpoint({ name: "gate", prompt: "go?" }); return 1' });
    await waitFor(() => fx.harness.engine.status(fx.harness.cwd, String(runId)).state === 'awaiting_input');
    expect(await fx.call(stopTool, { runId })).toEqual({ stopped: true });
    expect(await fx.call(stopTool, { runId })).toEqual({ stopped: false, reason: 'already_terminal' });
    expect(await fx.call(stopTool, { runId: 'nope' })).toEqual({ stopped: false, reason: 'unknown_run' });
    const other = await fx.harness.newEngine({ sessionId: 'other' }).launch({ name: 'x', cwd: fx.harness.cwd, script: 'return 1' });
    await other.outcome;
    expect(await fx.call(stopTool, { runId: other.runId })).toEqual({ stopped: false, reason: 'unknown_run' });
    expect(fx.pi.sent).toEqual([]);
  });
});

describe('workflow_respond', () => {
  it('answers a checkpoint by name; the run then completes and reports once', async () => {
    const next = fx.pi.nextMessage();
    const { runId } = await launch({ script: 'return await checkpoint({ name: "gate", prompt: "go?" })' });
    await waitFor(() => fx.harness.engine.status(fx.harness.cwd, String(runId)).state === 'awaiting_input');
    expect(await fx.call(respondTool, { runId, name: 'gate', approved: true })).toEqual({ kind: 'checkpoint', runId, name: 'gate', decision: 'approved', delivered: true });
    expect((await next).message.details).toMatchObject({ state: 'completed', value: 'approved' });
  });

  it('needs exactly one of proposalId and name', async () => {
    for (const params of [{ runId: 'r', approved: true }, { runId: 'r', name: 'a', proposalId: 'b', approved: true }]) {
      expect((await toolError(fx.call(respondTool, params))).code).toBe('INVALID_METADATA');
    }
  });
});

describe('workflow_resume and workflow_retry', () => {
  const twoAgents = 'const a = await agent("one"); const b = await agent("two"); return [a, b]';

  it('resumes a budget_exhausted run: a raise is held as a proposal, its approval resumes the run', async () => {
    const first = await launch({ script: twoAgents, budget: { agentLaunches: { hard: 1 } }, foreground: true });
    expect(first).toMatchObject({ state: 'budget_exhausted', error: { code: 'BUDGET_EXHAUSTED' } });
    const runId = String(first['runId']);
    const held = await fx.call(resumeTool, { runId, expectedState: 'budget_exhausted', budget: { agentLaunches: { hard: 5 } } });
    expect(held).toEqual({ runId, state: 'budget_exhausted', held: { message: expect.stringContaining('workflow_respond'), details: { proposalId: expect.any(String) } } });
    const proposalId = (held['held'] as { details: { proposalId: string } }).details.proposalId;
    const next = fx.pi.nextMessage();
    const answer = await fx.call(respondTool, { runId, proposalId, approved: true });
    expect(answer).toEqual({ kind: 'proposal', runId, proposalId, decision: 'approved', resumed: { runId, state: 'running', delivery: 'follow-up' } });
    expect((await next).message.details).toMatchObject({ runId, state: 'completed', value: ['echo:one', 'echo:two'] });
    expect(fx.harness.calls.map((call) => call.prompt)).toEqual(['one', 'two']);
  });

  it('resumes a paused run; foreground overrides the background launch mode and waits', async () => {
    const { runId } = await launch({ script: `const r = await shell(${JSON.stringify(gated())}); return r.exitCode` });
    await gateStarted(fx.harness.cwd);
    fx.harness.engine.pause(String(runId));
    release(fx.harness.cwd);
    await waitFor(() => fx.harness.engine.status(fx.harness.cwd, String(runId)).state === 'paused');
    const resumed = await fx.call(resumeTool, { runId, expectedState: 'paused', foreground: true });
    expect(resumed).toMatchObject({ runId, state: 'completed', value: 0, inlined: true });
    expect((await fx.call(statusTool, { runId }))['delivery']).toEqual({ mode: 'foreground', state: 'returned' });
    expect(fx.pi.sent).toEqual([]);
  });

  it('retries a failed run as a linked child; the wrong expectedState is refused', async () => {
    const failed = await launch({ script: 'const a = await agent("x"); if (!args) throw new Error("no"); return a', foreground: true });
    expect(failed['state']).toBe('failed');
    const refused = await toolError(fx.call(retryTool, { runId: failed['runId'], expectedState: 'completed' }));
    expect(refused.code).toBe('RESUME_INCOMPATIBLE');
    const child = await fx.call(retryTool, { runId: failed['runId'], expectedState: 'failed', foreground: true });
    expect(child).toMatchObject({ state: 'failed', parentRunId: failed['runId'] });
    expect(child['runId']).not.toBe(failed['runId']);
    expect(fx.harness.calls.map((call) => call.prompt)).toEqual(['x']);
  });
});

describe('workflow_catalog', () => {
  it('lists functions and static aliases; name gives one entry or a NOT_FOUND result', async () => {
    writeGlobalSettings(fx.harness.agentDir, { modelAliases: { cheap: 'faux/faux-1:low' } });
    const index = await fx.call(catalogTool, {});
    expect(index['modelAliases']).toEqual([{ name: 'cheap', kind: 'static', provenance: { settingsPath: expect.stringContaining('settings.json') } }]);
    expect(await fx.call(catalogTool, { name: 'cheap' })).toMatchObject({ name: 'cheap' });
    expect(await fx.call(catalogTool, { name: 'missing' })).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });

  it('lists registered functions without their implementations', async () => {
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'Test functions',
      functions: { double: { description: 'Doubles n', input: { type: 'object', properties: { n: { type: 'number' } } }, output: { type: 'number' }, run: (input) => (input as { n: number }).n * 2 } },
    });
    const index = await fx.call(catalogTool, {});
    expect(index['functions']).toEqual([{ name: 'double', description: 'Doubles n', input: { type: 'object', properties: { n: { type: 'number' } } } }]);
    const detail = await fx.call(catalogTool, { name: 'double' });
    expect(detail['function']).toMatchObject({ output: { type: 'number' }, extension: { headline: 'Test functions', version: '1.0.0' } });
    expect(JSON.stringify(detail)).not.toContain('run');
  });

  it('reports invalid settings as CONFIG_ERROR', async () => {
    writeGlobalSettings(fx.harness.agentDir, '{ nope');
    expect((await toolError(fx.call(catalogTool, {}))).code).toBe('CONFIG_ERROR');
  });
});

describe('the events bridge', () => {
  it('puts every WORKFLOW_* event on Pi\'s bus under its type', async () => {
    const { runId } = await launch({ script: 'phase("one"); return 1', foreground: true });
    const channels = fx.pi.bus.filter((entry) => (entry.data as { runId?: string }).runId === runId).map((entry) => entry.channel);
    expect(channels).toEqual(fx.harness.typesOf(String(runId)));
    expect(channels).toContain('workflow:run-completed');
    for (const entry of fx.pi.bus) expect(entry.data).toMatchObject({ type: entry.channel });
  });
});

