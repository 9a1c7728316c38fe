/**
 * The agent runner's own rules: retries with turn control, time-outs,
 * frozen configurations reused on resume and retry, the scheduler's limits,
 * system-prompt records and breadcrumbs.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createHarness, readJsonLines, waitFor } from '../support/engine-harness.js';
import { createKernel } from '../../kernel/kernel.js';
import { WorkflowEngine } from '../../kernel/engine/engine.js';
import { extensionHooksPlugin } from '../../plugins/extension-hooks/index.js';
import { echoTransportPlugin, type EchoCall, type EchoSession } from '../support/echo-transport.js';
import type { JsonValue } from '../../kernel/json.js';
import { registerWorkflowExtension, resetWorkflowRegistry } from '../../kernel/registry/index.js';

const h = createHarness();
afterAll(() => h.close());
afterEach(() => {
  h.answer = undefined;
  resetWorkflowRegistry();
});

describe('agent attempts', () => {
  it('retries a failed attempt and tells the agent why only through turn control', async () => {
    let attempt = 0;
    h.answer = (prompt) => (++attempt === 1 ? { nope: prompt } : { result: `ok on ${attempt}` });
    const before = h.calls.length;
    const outcome = await h.run(`return await agent('Fix the bug', { retries: 2, label: 'fixer' });`);
    expect(outcome.state).toBe('completed');
    expect(outcome.value).toBe('ok on 2');
    expect(h.calls.slice(before).map((call) => call.prompt)).toEqual(['Fix the bug', 'Fix the bug']);
    const agent = Object.values(h.snapshot(outcome.runDir).agents)[0]!;
    expect(agent).toMatchObject({ label: 'fixer', state: 'completed', attempts: 2 });
    const types = h.eventsOf(outcome.runId).flatMap(({ event }) => (event.type === 'workflow:agent-state-changed' ? [`${event.state}:${event.attempt}`] : []));
    expect(types).toEqual(['queued:0', 'running:1', 'retrying:2', 'running:2', 'completed:2']);
    const sessions = h.snapshot(outcome.runDir).agentSessions[agent.id] as { attempt: number }[];
    expect(sessions.map((session) => session.attempt)).toEqual([1, 2]);
  });

  it('fails with the last error when every attempt fails; the usage of every attempt stays charged', async () => {
    h.answer = () => ({ nope: true });
    const outcome = await h.run(`return await agent('x', { retries: 1 });`);
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('AGENT_FAILED');
    // 10 + 5 tokens per echo turn, one turn per attempt (spec 1 Budgets rule 2: failed attempts count).
    expect(Object.values(h.snapshot(outcome.runDir).agents)[0]).toMatchObject({ state: 'failed', attempts: 2, usage: { inputTokens: 20, outputTokens: 10 } });
    const attempts = h.callRecords(outcome.runDir).filter((record) => record['op'] === 'agent');
    expect(attempts.map((record) => [record['status'], record['usage']])).toEqual([
      ['failed', { inputTokens: 10, outputTokens: 5, costUsd: 0.001 }],
      ['failed', { inputTokens: 10, outputTokens: 5, costUsd: 0.001 }],
    ]);
  });

  it('ends a slow attempt with AGENT_TIMEOUT', async () => {
    // The answer never comes: only the time-out can end the attempt, so no clock is needed to prove it did.
    h.answer = () => new Promise(() => {});
    const outcome = await h.run(`try { return await agent('x', { timeoutMs: 100 }); } catch (e) { return e.code; }`);
    expect(outcome.value).toBe('AGENT_TIMEOUT');
  });
});

describe('frozen configurations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wf-frozen-'));
  let blockSlow = true;
  const calls: EchoCall[] = [];
  const kernel = createKernel({
    plugins: [extensionHooksPlugin, echoTransportPlugin({ calls, answer: (prompt) => (prompt === 'slow' && blockSlow ? new Promise(() => {}) : { result: prompt }) })],
  });
  const engineFor = () => new WorkflowEngine({ kernel, sessionId: 'frozen', root: join(dir, 'root'), agentDir: join(dir, 'agent'), home: dir });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('persists the configuration before the session and reuses it on retry without preparing again', async () => {
    let prepared = 0;
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'Counter',
      agentPreparationHooks: {
        count: {
          priority: 1,
          prepare: (configuration) => {
            prepared += 1;
            configuration.model = `test/model-${prepared}:low`;
          },
        },
      },
      functions: {
        gate: {
          description: 'fails until a flag exists',
          input: { type: 'object' },
          output: { type: 'boolean' },
          // Host code, not a journaled shell: a completed shell would replay its old answer.
          run: (_input, context) => {
            if (!existsSync(join(context.run.cwd, 'gate.flag'))) throw new Error('closed');
            return true;
          },
        },
      },
    });
    const engine = engineFor();
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const first = await engine.launch({ name: 'frozen', cwd, script: `const a = await agent('one'); await gate({}); return a;` });
    expect((await first.outcome).state).toBe('failed');
    // Launch inspection prepared the static options once, execution once more.
    expect(prepared).toBe(2);
    const configs = JSON.parse(readFileSync(join(first.runDir, 'snapshot.json'), 'utf8')).agentConfigurations as Record<string, unknown>;
    expect(Object.values(configs)).toEqual([expect.objectContaining({ version: 1, model: 'test/model-2:low', excludeTools: [] })]);
    writeFileSync(join(cwd, 'gate.flag'), '');
    const child = await engine.retry(cwd, first.runId, { expectedState: 'failed' });
    expect((await child.outcome).state).toBe('completed');
    // The retry replays the completed agent and does not inspect again: no further preparation.
    expect(prepared).toBe(2);
    expect(JSON.parse(readFileSync(join(child.runDir, 'snapshot.json'), 'utf8')).agentConfigurations).toEqual(configs);
    await engine.close();
  });

  it('reuses the frozen configuration of an interrupted agent on resume without preparing again', async () => {
    let prepared = 0;
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'Counter',
      agentPreparationHooks: { count: { priority: 1, prepare: (configuration) => void (configuration.model = `test/model-${++prepared}:low`) } },
    });
    blockSlow = true;
    const engine = engineFor();
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const run = await engine.launch({ name: 'resume-frozen', cwd, script: `return await agent('slow');` });
    await waitFor(() => calls.some((call) => call.prompt === 'slow'), 15_000, 'the first session');
    await engine.close();
    expect(prepared).toBe(2);
    blockSlow = false;
    const again = engineFor();
    const outcome = await (await again.resume(cwd, run.runId)).outcome;
    expect(outcome).toMatchObject({ state: 'completed', value: 'slow' });
    expect(prepared).toBe(2);
    expect(calls.filter((call) => call.prompt === 'slow').map((call) => call.model)).toEqual(['test/model-2:low', 'test/model-2:low']);
    await again.close();
  });

  it('hands preparation hooks the dynamic alias names that static settings do not shadow', async () => {
    const seen: string[][] = [];
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'Aliases',
      modelAliases: { fast: { resolve: () => 'test/fast:low' }, shadowed: { resolve: () => 'test/other:low' } },
      agentPreparationHooks: { look: { priority: 1, prepare: (_configuration, context) => void seen.push([...context.defaults.dynamicModelAliasNames]) } },
    });
    mkdirSync(join(dir, 'agent', 'pi-extensible-workflows'), { recursive: true });
    writeFileSync(join(dir, 'agent', 'pi-extensible-workflows', 'settings.json'), JSON.stringify({ modelAliases: { shadowed: 'test/static:low' } }));
    const engine = engineFor();
    try {
      const cwd = mkdtempSync(join(dir, 'cwd-'));
      blockSlow = false;
      expect((await (await engine.launch({ name: 'defaults', cwd, script: `return await agent('x');` })).outcome).state).toBe('completed');
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((names) => JSON.stringify(names) === '["fast"]')).toBe(true);
    } finally {
      rmSync(join(dir, 'agent', 'pi-extensible-workflows'), { recursive: true, force: true });
      await engine.close();
    }
  });

  it('fails closed on a stored configuration without frozen excludeTools', async () => {
    blockSlow = true;
    const engine = engineFor();
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const run = await engine.launch({ name: 'old', cwd, script: `return await agent('slow');` });
    const snapshotPath = join(run.runDir, 'snapshot.json');
    await waitFor(() => Object.keys(JSON.parse(readFileSync(snapshotPath, 'utf8')).agentConfigurations).length === 1, 15_000, 'the stored configuration');
    await engine.close();
    expect((await run.outcome).state).toBe('interrupted');
    const snapshot = JSON.parse(readFileSync(snapshotPath, 'utf8'));
    for (const config of Object.values(snapshot.agentConfigurations as Record<string, Record<string, unknown>>)) delete config['excludeTools'];
    writeFileSync(snapshotPath, JSON.stringify(snapshot));
    const again = engineFor();
    const resumed = await again.resume(cwd, run.runId);
    const outcome = await resumed.outcome;
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('RESUME_INCOMPATIBLE');
    expect(outcome.error?.message).toContain('excludeTools');
    await again.close();
  });
});

describe('handles', () => {
  it('continues one session across sends and starts a fresh one in a new segment', async () => {
    const before = h.calls.length;
    const outcome = await h.run(`const dev = agent.create({ name: 'dev', label: 'Developer' }); const a = await dev.send('first'); const b = await dev.send('second'); return [a, b];`);
    expect(outcome.value).toEqual(['echo:first', 'echo:second']);
    const turns = h.calls.slice(before);
    expect(turns.map((call) => call.turn)).toEqual([1, 2]);
    expect(turns[0]!.session).toBe(turns[1]!.session);
    expect(turns.map((call) => call.label)).toEqual(['Developer', 'Developer']);
    const snapshot = h.snapshot(outcome.runDir);
    expect(Object.keys(snapshot.agentConfigurations)).toEqual([expect.stringContaining('handle:dev')]);
    expect(Object.values(snapshot.agents).map((agent) => agent.state)).toEqual(['completed', 'completed']);
  });
});

describe('scheduling', () => {
  it('admits agents in call order under the per-run concurrency limit', async () => {
    let active = 0;
    let peak = 0;
    const order: string[] = [];
    h.answer = async (prompt) => {
      active += 1;
      peak = Math.max(peak, active);
      order.push(prompt);
      // Each agent waits for a second one beside it (or for the last to start), so the peak does not depend on timing.
      for (let waited = 0; active < 2 && order.length < 5 && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
      active -= 1;
      return { result: prompt };
    };
    const outcome = await h.run(
      `return await parallel('fan', { a: () => agent('a'), b: () => agent('b'), c: () => agent('c'), d: () => agent('d'), e: () => agent('e') });`,
      { concurrency: 2 },
    );
    expect(outcome.state).toBe('completed');
    expect(peak).toBe(2);
    expect(order).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(h.snapshot(outcome.runDir).concurrency).toBe(2);
  });
});

describe('records', () => {
  it('labels registered-function breadcrumbs #2, #3 and by invoke label', async () => {
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'Crumbs',
      functions: {
        ask: { description: 'asks', input: { type: 'object' }, output: {}, run: (_input, context) => context.agent('q') },
        outer: { description: 'invokes ask with a label', input: { type: 'object' }, output: {}, run: (_input, context) => context.invoke('ask', {}, 'Asking') },
      },
    });
    const outcome = await h.run(`await ask({}); await ask({}); await ask({}); return await outer({});`);
    expect(outcome.state).toBe('completed');
    const crumbs = Object.values(h.snapshot(outcome.runDir).agents).map((agent) => (agent.breadcrumb ?? []).join(' > '));
    expect(crumbs.sort()).toEqual(['ask', 'ask#2', 'ask#3', 'outer > Asking'].sort());
  });

  it('has no system-prompt records for a transport without a system prompt', async () => {
    const outcome = await h.run(`return await agent('x');`);
    expect(existsSync(join(outcome.runDir, 'system-prompts.json'))).toBe(false);
    expect(readJsonLines(join(outcome.runDir, 'journal.jsonl')).map((record) => record['kind'])).toEqual(['agent']);
    expect(readFileSync(join(outcome.runDir, 'snapshot.json'), 'utf8')).not.toContain('echo:x');
  });
});

describe('nested agents', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wf-nested-'));
  let answer: (prompt: string, session: EchoSession) => JsonValue | Promise<JsonValue> = (prompt) => ({ result: prompt });
  const calls: EchoCall[] = [];
  const kernel = createKernel({ plugins: [echoTransportPlugin({ calls, answer: (prompt, session) => answer(prompt, session) })] });
  const engine = new WorkflowEngine({ kernel, sessionId: 'nested', root: join(dir, 'root'), agentDir: join(dir, 'agent'), home: dir });
  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const tool = (session: EchoSession, name: string) => session.tools.find((candidate) => candidate.name === name)!;

  it('spawns children with the agent tool and collects each result once', async () => {
    answer = async (prompt, session) => {
      if (prompt !== 'lead') return { result: `child did ${prompt}` };
      const first = (await tool(session, 'agent').execute({ prompt: 'a', label: 'scout' }, session.signal)) as { id: string };
      const second = (await tool(session, 'agent').execute({ prompt: 'b', label: 'scout' }, session.signal)) as { id: string };
      const one = (await tool(session, 'get_subagent_result').execute({ id: first.id }, session.signal)) as { result: string };
      const two = (await tool(session, 'get_subagent_result').execute({ id: second.id }, session.signal)) as { result: string };
      const again = await tool(session, 'get_subagent_result').execute({ id: first.id }, session.signal).catch((error: { code: string }) => error.code);
      return { result: JSON.stringify([first.id, second.id, one.result, two.result, again]) };
    };
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const run = await engine.launch({ name: 'nested', cwd, script: `return await agent('lead', { label: 'lead' });` });
    const outcome = await run.outcome;
    expect(outcome.state).toBe('completed');
    const [firstId, secondId, one, two, again] = JSON.parse(String(outcome.value)) as string[];
    expect(firstId).toMatch(/^child:.+\/spawn:1\/scout#0$/);
    expect(secondId).toMatch(/^child:.+\/spawn:2\/scout#1$/);
    expect([one, two, again]).toEqual(['child did a', 'child did b', 'AGENT_RESULT_COLLECTED']);
    const agents = Object.values(JSON.parse(readFileSync(join(run.runDir, 'snapshot.json'), 'utf8')).agents as Record<string, { id: string; state: string; parentId?: string; usage: { inputTokens: number } }>);
    const lead = agents.find((agent) => agent.parentId === undefined)!;
    expect(agents.filter((agent) => agent.parentId === lead.id).map((agent) => agent.state)).toEqual(['completed', 'completed']);
    // The parent's usage includes its descendants: 10 input tokens per echo session.
    expect(lead.usage.inputTokens).toBe(30);
  });

  it('reports a failed child with a core code and cancels children nobody collected', async () => {
    let cancelled = false;
    answer = async (prompt, session) => {
      if (prompt === 'bad') return { nope: true };
      if (prompt === 'forever') {
        await new Promise((_resolve, reject) => session.signal.addEventListener('abort', () => ((cancelled = true), reject(new Error('aborted')))));
      }
      if (prompt !== 'lead') return { result: prompt };
      const bad = (await tool(session, 'agent').execute({ prompt: 'bad' }, session.signal)) as { id: string };
      await tool(session, 'agent').execute({ prompt: 'forever' }, session.signal);
      const code = await tool(session, 'get_subagent_result').execute({ id: bad.id }, session.signal).catch((error: { code: string }) => error.code);
      return { result: String(code) };
    };
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const run = await engine.launch({ name: 'nested-fail', cwd, script: `return await agent('lead');` });
    const outcome = await run.outcome;
    expect(outcome.value).toBe('AGENT_FAILED');
    await waitFor(() => cancelled, 3000, 'the uncollected child to be cancelled');
    // The failed child and the cancelled one are charged to the parent too: three echo sessions of 10 input tokens.
    const agents = Object.values(JSON.parse(readFileSync(join(run.runDir, 'snapshot.json'), 'utf8')).agents as Record<string, { state: string; parentId?: string; usage: { inputTokens: number } }>);
    expect(agents.find((agent) => agent.parentId === undefined)?.usage.inputTokens).toBe(30);
    expect(agents.filter((agent) => agent.parentId !== undefined).map((agent) => [agent.state, agent.usage.inputTokens]).sort()).toEqual([
      ['cancelled', 10],
      ['failed', 10],
    ]);
  });
});
