/**
 * A foreground checkpoint in interactive Pi: the notice says a decision waits
 * and names `/workflow`, shows the prompt as terminal-safe text, keeps a status
 * line while any checkpoint of the run waits, and clears it when disposed.
 */
import { describe, expect, it } from 'vitest';
import { WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT } from '../../../kernel/index.js';
import { announceCheckpoints, CHECKPOINT_STATUS_KEY } from '../../../plugins/host/checkpoint-notice.js';

function harness(prompts: Record<string, string>) {
  const handlers = new Set<(data: unknown) => void>();
  const notices: string[] = [];
  const statuses: (string | undefined)[] = [];
  const notice = announceCheckpoints({
    runId: 'run-1',
    workflow: 'release',
    events: {
      on: (event, handler) => {
        expect(event).toBe(WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT);
        handlers.add(handler);
        return () => handlers.delete(handler);
      },
    },
    ui: {
      notify: (message) => notices.push(message),
      setStatus: (key, text) => {
        expect(key).toBe(CHECKPOINT_STATUS_KEY);
        statuses.push(text);
      },
    },
    promptOf: (name) => prompts[name],
  });
  const emit = (runId: string, name: string, state: string) => {
    for (const handler of handlers) handler({ type: WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT, runId, name, state });
  };
  return { notice, notices, statuses, emit, handlers };
}

describe('checkpoint notice', () => {
  it('says a decision waits, with the prompt and /workflow, until the checkpoint is answered', () => {
    const h = harness({ ship: 'Ship 1.2?\x1b[31m now' });
    h.emit('other-run', 'ship', 'awaiting');
    expect(h.notices).toEqual([]);
    h.emit('run-1', 'ship', 'awaiting');
    expect(h.notices).toHaveLength(1);
    expect(h.notices[0]).toContain('checkpoint "ship"');
    expect(h.notices[0]).toContain('/workflow');
    expect(h.notices[0]).toContain('Ship 1.2?\\x1b[31m now');
    expect(h.notices[0]).not.toContain('\x1b');
    expect(h.statuses).toEqual(['Workflow release waits for your decision on checkpoint "ship": open /workflow to approve or reject']);
    h.emit('run-1', 'ship', 'approved');
    expect(h.statuses.at(-1)).toBeUndefined();
    h.notice.dispose();
    expect(h.handlers.size).toBe(0);
    expect(h.statuses).toHaveLength(2);
  });

  it('shows the start of a long prompt and says where the rest is', () => {
    const h = harness({ ship: 'x'.repeat(50_000) });
    h.emit('run-1', 'ship', 'awaiting');
    expect(h.notices[0]!.length).toBeLessThan(1300);
    expect(h.notices[0]).toContain('… (/workflow shows all of it)');
    h.notice.dispose();
  });

  it('clears a status still shown when the wait ends another way', () => {
    const h = harness({});
    h.emit('run-1', 'ship', 'awaiting');
    expect(h.notices[0]).toContain('checkpoint "ship"');
    h.notice.dispose();
    expect(h.statuses.at(-1)).toBeUndefined();
  });
});
