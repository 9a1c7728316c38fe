/**
 * A real Pi session (pi-ai's faux provider) inside `withWorktree`: the agent's
 * own `write` and `bash` tools act in the worktree, never in the caller's tree.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fauxAssistantMessage, fauxToolCall, type FauxResponseStep } from '@earendil-works/pi-ai';
import { WorkflowEngine, createKernel } from '../../../kernel/index.js';
import { RESULT_TOOL_NAME, createPiTransportPlugin } from '../../../plugins/pi-transport/index.js';
import { worktreesPlugin } from '../../../plugins/worktrees/index.js';
import { createFauxAgentDir, type FauxAgentDir } from '../../support/pi-agent-dir.js';
import { callerState, initRepo } from './git-fixture.js';

let dir: FauxAgentDir;
let engine: WorkflowEngine;
beforeAll(() => {
  dir = createFauxAgentDir();
  initRepo(dir.cwd);
  const kernel = createKernel({ plugins: [worktreesPlugin, createPiTransportPlugin({ agentDir: dir.agentDir })] });
  engine = new WorkflowEngine({ kernel, sessionId: 's1', root: join(dir.root, 'runs'), agentDir: dir.agentDir, home: dir.root });
});
afterAll(async () => {
  await engine.close();
  dir.close();
});

const call = (name: string, args: Parameters<typeof fauxToolCall>[1]) => fauxAssistantMessage(fauxToolCall(name, args), { stopReason: 'toolUse' });

describe('a Pi agent inside withWorktree', () => {
  it('writes into the worktree and runs bash there; the caller tree is untouched', async () => {
    // write agent.txt, then ask git where it is, then submit what git said.
    const step: FauxResponseStep = (context) => {
      const last = context.messages.at(-1);
      if (last?.role === 'toolResult' && last.toolName === 'bash') {
        const text = last.content.map((part) => ('text' in part ? part.text : '')).join('');
        return call(RESULT_TOOL_NAME, { result: text.trim() });
      }
      if (last?.role === 'toolResult' && last.toolName === 'write') return call('bash', { command: 'git rev-parse --show-toplevel' });
      return call('write', { path: 'agent.txt', content: 'written by the agent\n' });
    };
    dir.faux.setResponses([step, step, step]);
    const cwd = realpathSync(dir.cwd);
    const before = callerState(cwd);
    const handle = await engine.launch({ name: 'pi-worktree', cwd, script: `return await withWorktree('pi', async (wt) => ({ wt, top: await agent('work', { model: '${dir.model()}' }) }));` });
    const outcome = await handle.outcome;
    expect(outcome.error).toBeUndefined();
    const { wt, top } = outcome.value as { wt: { path: string }; top: string };
    expect(top).toBe(wt.path);
    expect(readFileSync(join(wt.path, 'agent.txt'), 'utf8')).toBe('written by the agent\n');
    expect(existsSync(join(cwd, 'agent.txt'))).toBe(false);
    expect(callerState(cwd)).toEqual(before);
  });
});
