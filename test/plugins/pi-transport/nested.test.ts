/**
 * Nested agents on real Pi sessions (faux provider): a parent that spawns a
 * child with the `agent` tool and waits in `get_subagent_result` gives its
 * slot to the child, so with `concurrency: 1` both complete.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fauxAssistantMessage, fauxToolCall, type FauxResponseStep } from '@earendil-works/pi-ai';
import { RESULT_TOOL_NAME } from '../../../plugins/pi-transport/index.js';
import { usePiEngine } from '../../support/pi-engine.js';

const call = (name: string, args: Parameters<typeof fauxToolCall>[1]) => fauxAssistantMessage(fauxToolCall(name, args), { stopReason: 'toolUse' });
const textOf = (content: string | readonly { type: string; text?: string }[]) => (typeof content === 'string' ? content : content.map((part) => part.text ?? '').join(''));

/** `spawn:<task>` spawns a child with `<task>` on `model`, collects it and submits what it got; any other task submits `did <task>`. */
const spawning = (model: string): FauxResponseStep => (context) => {
  const user = context.messages.find((message) => message.role === 'user');
  const task = user === undefined ? '' : textOf(user.content as string);
  const last = context.messages.at(-1);
  if (!task.startsWith('spawn:')) return call(RESULT_TOOL_NAME, { result: `did ${task}` });
  if (last?.role === 'toolResult' && last.toolName === 'agent') return call('get_subagent_result', { id: (JSON.parse(textOf(last.content)) as { id: string }).id });
  if (last?.role === 'toolResult' && last.toolName === 'get_subagent_result') {
    return call(RESULT_TOOL_NAME, { result: `parent of (${(JSON.parse(textOf(last.content)) as { result: string }).result})` });
  }
  return call('agent', { prompt: task.slice('spawn:'.length), label: 'kid', model });
};

describe('nested agents on Pi sessions', () => {
  const env = usePiEngine();
  beforeEach(() => env.dir.faux.setResponses(Array.from({ length: 12 }, () => spawning(env.dir.model()))));

  it('completes a parent and its child with concurrency 1', async () => {
    const handle = await env.pi.engine.launch({ name: 'nested', cwd: env.dir.cwd, concurrency: 1, script: `return await agent('spawn:the child task', { model: '${env.dir.model()}' })` });
    const outcome = await handle.outcome;
    expect(outcome.error).toBeUndefined();
    expect(outcome.value).toBe('parent of (did the child task)');
  });

  it('completes three generations with concurrency 1', async () => {
    const handle = await env.pi.engine.launch({ name: 'nested', cwd: env.dir.cwd, concurrency: 1, script: `return await agent('spawn:spawn:leaf', { model: '${env.dir.model()}' })` });
    const outcome = await handle.outcome;
    expect(outcome.error).toBeUndefined();
    expect(outcome.value).toBe('parent of (parent of (did leaf))');
  });
});
