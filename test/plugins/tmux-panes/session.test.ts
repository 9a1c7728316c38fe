import { describe, expect, it } from 'vitest';
import { isWorkflowError, type SessionProgress } from '../../../kernel/index.js';
import type { PaneChannel } from '../../../plugins/tmux-panes/channel.js';
import type { HostMessage } from '../../../plugins/tmux-panes/protocol.js';
import { PaneSession } from '../../../plugins/tmux-panes/session.js';

function session(options: { turnControl?: string; alive?: boolean; customTools?: ConstructorParameters<typeof PaneSession>[0]['customTools'] } = {}) {
  const sent: HostMessage[] = [];
  let closes = 0;
  const channel = { send: (message: HostMessage) => (sent.push(message), true) } as unknown as PaneChannel;
  const pane = new PaneSession({
    channel,
    hello: { type: 'hello', version: 1, token: 't', sessionId: 'sid', model: 'e2e/m:off', systemPrompt: 'SP', tools: [] },
    reference: { transport: 'tmux', pane: '%1' },
    customTools: options.customTools ?? [],
    turnControl: options.turnControl,
    alive: async () => options.alive ?? true,
    close: async () => void closes++,
    where: '%1',
  });
  const progress: SessionProgress[] = [];
  pane.subscribe((event) => progress.push(event));
  return { pane, sent, progress, closes: () => closes };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('a pane session', () => {
  it('delivers turn control in the first prompt, judges submissions, and ends the turn at agent_end', async () => {
    const { pane, sent, progress } = session({ turnControl: 'Attempt 2 of 2.' });
    expect(pane.turnControlDelivered).toBe(true);
    expect(pane.nativeSessionId).toBe('sid');
    await pane.steer('Also check the tests.');
    const turn = pane.prompt('Do the task', { outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } });
    expect(pane.state()).toBe('running');
    expect(sent[0]).toMatchObject({ type: 'prompt', text: 'Do the task\n\nAttempt 2 of 2.\n\nAlso check the tests.', resultTool: { name: 'workflow_result' } });
    pane.onMessage({ type: 'result', id: 'r0', params: { n: 'x' } });
    expect(sent[1]).toMatchObject({ type: 'result_ack', id: 'r0', error: expect.stringMatching(/^Result rejected/) });
    pane.onMessage({ type: 'result', id: 'r1', params: { n: 3 } });
    expect(sent[2]).toEqual({ type: 'result_ack', id: 'r1' });
    pane.onMessage({ type: 'turn_end', stats: { inputTokens: 5, outputTokens: 2, costUsd: 0, turns: 1 } });
    pane.onMessage({ type: 'agent_end' });
    await turn;
    expect(progress).toContainEqual({ type: 'result', value: { n: 3 } });
    expect(pane.stats()).toEqual({ inputTokens: 5, outputTokens: 2, costUsd: 0, turns: 1 });
    // A later turn carries no turn control.
    const second = pane.prompt('Next');
    expect(sent.at(-1)).toMatchObject({ type: 'prompt', text: 'Next' });
    pane.onMessage({ type: 'agent_end' });
    await second;
  });

  it('fails the turn with AGENT_FAILED when the pane closes first', async () => {
    const { pane } = session();
    const turn = pane.prompt('Task');
    pane.onClose();
    const error = await turn.catch((cause: unknown) => cause);
    expect(isWorkflowError(error) && error.code).toBe('AGENT_FAILED');
    expect((error as Error).message).toMatch(/tmux pane %1 closed/);
    await expect(pane.prompt('Again')).rejects.toThrow(/closed/);
  });

  it('ends a turn without a result when the pane lives, and fails it as closed when the pane is gone', async () => {
    const living = session();
    const ended = living.pane.prompt('Task');
    living.pane.onMessage({ type: 'agent_end' });
    await expect(ended).resolves.toBeUndefined();
    const killed = session({ alive: false });
    const turn = killed.pane.prompt('Task');
    killed.pane.onMessage({ type: 'agent_end' });
    const error = await turn.catch((cause: unknown) => cause);
    expect(isWorkflowError(error) && error.code).toBe('AGENT_FAILED');
    expect((error as Error).message).toMatch(/tmux pane %1 closed/);
  });

  it('runs custom tools for the pane and reports their errors as tool errors', async () => {
    const { pane, sent } = session({
      customTools: [
        { name: 'echo', description: '', parameters: { type: 'object' }, execute: async (params) => ({ echoed: params }) },
        { name: 'boom', description: '', parameters: { type: 'object' }, execute: async () => Promise.reject(new Error('no')) },
      ],
    });
    pane.onMessage({ type: 'tool_call', id: 't0', name: 'echo', params: { a: 1 } });
    pane.onMessage({ type: 'tool_call', id: 't1', name: 'boom', params: {} });
    pane.onMessage({ type: 'tool_call', id: 't2', name: 'missing', params: {} });
    await tick();
    expect(sent).toEqual(
      expect.arrayContaining([
        { type: 'tool_result', id: 't0', ok: true, text: '{"echoed":{"a":1}}' },
        { type: 'tool_result', id: 't1', ok: false, text: 'no' },
        { type: 'tool_result', id: 't2', ok: false, text: 'the workflow host has no tool "missing"' },
      ]),
    );
  });

  it('rejects a turn whose schema cannot compile with INVALID_SCHEMA, sending nothing', async () => {
    const { pane, sent } = session();
    const error = await pane.prompt('Task', { outputSchema: { type: 'nonsense' } }).catch((cause: unknown) => cause);
    expect(isWorkflowError(error) && error.code).toBe('INVALID_SCHEMA');
    expect(sent).toEqual([]);
    expect(pane.state()).toBe('idle');
  });

  it('disposes once, rejecting a running turn', async () => {
    const { pane, closes } = session();
    const turn = pane.prompt('Task');
    await Promise.all([pane.dispose(), pane.dispose()]);
    await expect(turn).rejects.toThrow(/disposed/);
    expect(closes()).toBe(1);
    expect(pane.state()).toBe('disposed');
  });
});
