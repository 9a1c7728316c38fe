/**
 * The host's reading of a remote attempt's turn rows (turn-feed.ts): every
 * turn once, in order, cumulative over the attempt's executions; nothing
 * after the agent submitted its result.
 */
import { describe, expect, it } from 'vitest';
import { TurnFeed } from '../../../plugins/remote-agents/turn-feed.js';
import type { TurnRow } from '../../../plugins/remote-agents/turn-log.js';

/** The rows a worker appended so far, served as the table would: after an ID, in order. */
function table(): { rows: TurnRow[]; after(workflowId: string, after: number): Promise<TurnRow[]> } {
  const rows: TurnRow[] = [];
  return { rows, after: async (_workflowId, after) => rows.filter((row) => row.id > after) };
}

const row = (id: number, execution: string, turns: number, submitted = false): TurnRow => ({ id, execution, submitted, stats: { inputTokens: 10 * turns, outputTokens: 5 * turns, costUsd: 0, turns } });

describe('turn feed', () => {
  it('reports each turn once, in order, summed over executions, and nothing of an execution after its result', async () => {
    const log = table();
    const feed = new TurnFeed(() => log, 'wf/a/1');
    expect(await feed.read()).toEqual([]);
    log.rows.push(row(1, 'dead', 1), row(2, 'dead', 2));
    expect((await feed.read()).map((stats) => stats.inputTokens)).toEqual([10, 20]);
    // Read again: nothing new. A recovered execution's turns add to what the dead one used.
    expect(await feed.read()).toEqual([]);
    log.rows.push(row(3, 'live', 1), row(4, 'live', 1), row(5, 'live', 2, true), row(6, 'live', 3));
    expect(await feed.read()).toEqual([{ inputTokens: 30, outputTokens: 15, costUsd: 0, turns: 3 }]);
  });

  it('two reads at once report the rows once', async () => {
    const log = table();
    const feed = new TurnFeed(() => log, 'wf/a/1');
    log.rows.push(row(1, 'x', 1), row(2, 'x', 2));
    const [first, second] = await Promise.all([feed.read(), feed.read()]);
    expect([...first, ...second].map((stats) => stats.turns)).toEqual([1, 2]);
  });
});
