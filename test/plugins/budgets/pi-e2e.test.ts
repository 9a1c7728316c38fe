/**
 * End to end through real Pi sessions (pi-ai's faux provider): a token hard
 * limit stops an agent between model turns, before the work its next turn
 * would do, and the run halts in budget_exhausted; a resume with a raised
 * budget waits for approval, and the approved proposal completes the run.
 *
 * Faux usage is estimated from text: the first turn costs about 1,900 tokens
 * (system prompt and Pi's four default tools), the second adds 10,000 through
 * a long reply, so a soft limit of 1,000 falls inside the first turn and a
 * hard limit of 8,000 between them, with wide margins.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fauxAssistantMessage, fauxText, fauxToolCall, type AssistantMessage, type FauxContentBlock, type FauxResponseStep } from '@earendil-works/pi-ai';
import { createKernel, WorkflowEngine } from '../../../kernel/index.js';
import { budgetsPlugin } from '../../../plugins/budgets/index.js';
import { checkpointsPlugin } from '../../../plugins/checkpoints/index.js';
import { createPiTransportPlugin, RESULT_TOOL_NAME } from '../../../plugins/pi-transport/index.js';
import { createFauxAgentDir, type FauxAgentDir } from '../../support/pi-agent-dir.js';

let dir: FauxAgentDir;
let engine: WorkflowEngine;
beforeAll(() => {
  dir = createFauxAgentDir();
  writeFileSync(join(dir.cwd, 'notes.txt'), 'alpha\nbeta\n');
  const kernel = createKernel({ plugins: [checkpointsPlugin, createPiTransportPlugin({ agentDir: dir.agentDir }), budgetsPlugin] });
  engine = new WorkflowEngine({ kernel, sessionId: 's1', root: join(dir.root, 'runs'), agentDir: dir.agentDir, home: dir.root });
});
afterAll(async () => {
  await engine.close();
  dir.close();
});

/** The user messages of every model request, in order. */
const requests: string[][] = [];
const recorded =
  (message: AssistantMessage): FauxResponseStep =>
  (context) => {
    requests.push(context.messages.filter((entry) => entry.role === 'user').map((entry) => (typeof entry.content === 'string' ? entry.content : entry.content.map((part) => ('text' in part ? part.text : '')).join(''))));
    return message;
  };
const toolTurn = (...content: FauxContentBlock[]) => fauxAssistantMessage(content, { stopReason: 'toolUse' });

it('stops an agent between turns at the token hard limit, then completes after an approved raise', async () => {
  const marker = join(dir.cwd, 'marker.txt');
  dir.faux.setResponses([
    recorded(toolTurn(fauxToolCall('read', { path: 'notes.txt' }))),
    recorded(toolTurn(fauxText('x'.repeat(40_000)), fauxToolCall('read', { path: 'notes.txt' }))),
    // The third turn would write a file: it must never begin.
    recorded(toolTurn(fauxToolCall('write', { path: 'marker.txt', content: 'too late' }))),
  ]);
  const script = `return await agent('Inspect the notes', { model: '${dir.model()}', label: 'reader' });`;
  const handle = await engine.launch({ name: 'budget-e2e', cwd: dir.cwd, script, options: { budget: { tokens: { soft: 1000, hard: 8000 } } } });
  const halted = await handle.outcome;
  expect(halted).toMatchObject({ state: 'budget_exhausted', error: { code: 'BUDGET_EXHAUSTED' } });
  expect(requests).toHaveLength(2);
  expect(dir.faux.getPendingResponseCount()).toBe(1);
  expect(existsSync(marker)).toBe(false);
  // The soft crossing after turn one reached the agent once, before turn two, apart from the task.
  expect(requests[1]).toEqual(['Inspect the notes', expect.stringMatching(/^Budget notice: .*soft tokens budget/)]);
  const exhausted = engine.status(dir.cwd, handle.runId).plugins['budgets'] as { usage: { tokens: number; agentLaunches: number }; exhausted: string[] };
  expect(exhausted.usage.tokens).toBeGreaterThanOrEqual(8000);
  expect(exhausted).toMatchObject({ usage: { agentLaunches: 1 }, exhausted: ['tokens'] });

  const held = await engine.resume(dir.cwd, handle.runId, { options: { budget: { tokens: { hard: 1_000_000 } } } });
  const proposalId = held.held?.details?.['proposalId'];
  expect(typeof proposalId).toBe('string');
  expect(engine.status(dir.cwd, handle.runId).state).toBe('budget_exhausted');

  requests.length = 0;
  dir.faux.setResponses([recorded(toolTurn(fauxToolCall('read', { path: 'notes.txt' }))), recorded(toolTurn(fauxToolCall(RESULT_TOOL_NAME, { result: 'alpha, beta' })))]);
  const answer = await engine.respondProposal(dir.cwd, handle.runId, String(proposalId), true);
  expect(await answer.resumed!.outcome).toMatchObject({ state: 'completed', value: 'alpha, beta' });
  expect(requests).toHaveLength(2);
  expect(existsSync(marker)).toBe(false);
  const final = engine.status(dir.cwd, handle.runId).plugins['budgets'] as { version: number; usage: { tokens: number; agentLaunches: number }; exhausted: string[] };
  expect(final).toMatchObject({ version: 2, usage: { agentLaunches: 2 }, exhausted: [] });
  expect(final.usage.tokens).toBeGreaterThan(exhausted.usage.tokens);
});
