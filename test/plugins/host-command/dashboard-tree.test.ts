/**
 * The dashboard tree of real runs (spec 1 "/workflow command" rule 4):
 * phases, structural groups, registered-function breadcrumbs with `#2`,
 * invoke labels, creation order and nested children under their parent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createKernel, registerWorkflowExtension, resetWorkflowRegistry, WorkflowEngine, type JsonValue, type StatusSummary } from '../../../kernel/index.js';
import { agentText, agentTransports, dashboardRows, nextSelectable, pathLevels, rowIndexOf, type DashboardRow } from '../../../plugins/host/dashboard/tree.js';
import { echoTransportPlugin, type EchoSession } from '../../support/echo-transport.js';
import { agent, summary } from './summaries.js';

// The echo transport with a per-test answer that may spawn nested children through the session's tools.
const dir = mkdtempSync(join(tmpdir(), 'wf-dashboard-'));
let answer: (prompt: string, session: EchoSession) => JsonValue | Promise<JsonValue> = (prompt) => ({ result: prompt });
const engine = new WorkflowEngine({
  kernel: createKernel({ plugins: [echoTransportPlugin({ answer: (prompt, session) => answer(prompt, session) })] }),
  sessionId: 's1',
  root: join(dir, 'root'),
  agentDir: join(dir, 'agent'),
  home: dir,
});
const cwd = join(dir, 'project');
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  resetWorkflowRegistry();
  answer = (prompt) => ({ result: prompt });
});

async function run(script: string): Promise<StatusSummary> {
  const handle = await engine.launch({ name: 'test', cwd, script });
  const outcome = await handle.outcome;
  expect(outcome.error).toBeUndefined();
  return engine.status(cwd, handle.runId);
}

/** Rows as indented text; usage (its own test below) is left out, the tree is what these tests check. */
const show = (rows: readonly DashboardRow[]): string[] => rows.map((row) => `${'  '.repeat(row.depth)}${row.text.replace(/ · [\d,]+ tok · \$[\d.]+$/, '')}`);

const tool = (session: EchoSession, name: string) => session.tools.find((candidate) => candidate.name === name)!;

describe('the dashboard tree of a run', () => {
  it('groups agents by phase and structural path, keeps creation order and nests spawned children', async () => {
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'Dashboard test functions',
      functions: {
        review: {
          description: 'one reviewer',
          input: { type: 'object' },
          output: {},
          run: (_input, context) => context.agent('review it', { label: 'inner' }),
        },
        outer: {
          description: 'invokes review under a label',
          input: { type: 'object' },
          output: {},
          run: (_input, context) => context.invoke('review', {}, 'second opinion'),
        },
      },
    });
    // The lead agent spawns two children through the nested `agent` tool.
    answer = async (prompt, session) => {
      if (prompt !== 'lead') return { result: prompt };
      for (const child of ['a', 'b']) {
        const { id } = (await tool(session, 'agent').execute({ prompt: child, label: 'scout' }, session.signal)) as { id: string };
        await tool(session, 'get_subagent_result').execute({ id }, session.signal);
      }
      return { result: 'led' };
    };
    const status = await run(`
      phase('scan');
      await parallel('reviews', { a: () => agent('a', { label: 'reviewer' }), b: () => review({}) });
      phase('fix');
      await review({});
      await review({});
      await outer({});
      await pipeline('ship', { web: 1 }, [(value) => agent('build', { label: 'builder' })]);
      await agent('lead', { label: 'lead' });
      return 'ok';`);
    expect(show(dashboardRows(status))).toEqual([
      'Workflow test · completed · phase fix · 9 agents: 9 completed',
      '  phase scan',
      '    parallel reviews',
      '      a',
      '        reviewer · completed',
      '      b',
      '        ƒ review',
      '          inner · completed',
      '  phase fix',
      '    ƒ review',
      '      inner · completed',
      '    ƒ review#2',
      '      inner · completed',
      '    ƒ outer',
      '      ƒ second opinion',
      '        inner · completed',
      '    pipeline ship',
      '      web',
      '        stage 1',
      '          builder · completed',
      '    lead · completed',
      '      scout · completed',
      '      scout · completed',
    ]);
  });

  it('has no phase level when the script records no phase, and only the root when no agent ran', async () => {
    expect(show(dashboardRows(await run(`await agent('x', { label: 'solo' }); return 1;`)))).toEqual(['Workflow test · completed · 1 agent: 1 completed', '  solo · completed']);
    expect(show(dashboardRows(await run(`return 1;`)))).toEqual(['Workflow test · completed · no agents']);
  });
});

describe('tree details', () => {
  it('names scope segments and falls back to the segment when a breadcrumb is missing', () => {
    expect(pathLevels(['withWorktree:feature', 'fn:review#3']).map((level) => level.text)).toEqual(['withWorktree feature', 'ƒ review#3']);
  });

  it('shows retries and usage on agent rows', () => {
    expect(agentText(agent({ id: 'a', label: 'fixer', state: 'retrying', attempts: 2, usage: { inputTokens: 1000, outputTokens: 234, costUsd: 0.0123 } }))).toBe('fixer · retrying · attempt 2 · 1,234 tok · $0.0123');
  });

  it('places an agent of a corrupt parent cycle by its path instead of hanging', () => {
    const run = summary({ agents: [agent({ id: 'a', label: 'one', parentId: 'b' }), agent({ id: 'b', label: 'two', parentId: 'a' })] });
    expect(show(dashboardRows(run)).slice(1)).toEqual(['  two · completed', '    one · completed']);
  });

  it('moves the cursor over selectable rows only and keeps it on the same agent after a refresh', () => {
    const run: StatusSummary = summary({ agents: [agent({ id: 'x', label: 'x', path: ['parallel:p/k'] }), agent({ id: 'y', label: 'y', path: ['parallel:p/k'] })] });
    const rows = dashboardRows(run);
    expect(rows.map((row) => row.kind)).toEqual(['root', 'group', 'group', 'agent', 'agent']);
    expect(nextSelectable(rows, 0, 1)).toBe(3);
    expect(nextSelectable(rows, 3, -1)).toBe(0);
    expect(nextSelectable(rows, 4, 1)).toBe(4);
    expect(rowIndexOf(rows, 'y')).toBe(4);
    expect(rowIndexOf(rows, 'gone')).toBe(0);
  });
});

describe('agents of another transport', () => {
  it("shows where the latest attempt runs when its reference says so (`via`)", () => {
    const transports = agentTransports(
      new Map([
        ['a', [{ attempt: 1, reference: { transport: 'pi', sessionId: 'x' } }, { attempt: 2, reference: { transport: 'tmux', via: 'tmux', pane: '%1' } }]],
        ['b', [{ attempt: 1, reference: { transport: 'tmux', via: 'tmux' } }, { attempt: 2, reference: { transport: 'pi', sessionId: 'y' } }]],
      ]),
    );
    expect([...transports]).toEqual([['a', 'tmux']]);
    const rows = dashboardRows(summary({ agents: [agent({ id: 'a', label: 'alpha', state: 'running' }), agent({ id: 'b', label: 'beta' })] }), transports);
    expect(rows.filter((row) => row.kind === 'agent').map((row) => row.text)).toEqual(['alpha · running · via tmux', 'beta · completed']);
    expect(agentText(agent({ id: 'b', label: 'beta' }))).toBe('beta · completed');
  });
});
