/**
 * `journal.settle`: a segment failing with BUDGET_EXHAUSTED halts in the
 * resumable `budget_exhausted` state, remembering which hard dimensions a
 * resume must lift; a completion while a hard limit is exceeded records an
 * overrun per dimension. Every settlement persists the final usage, so a
 * retry child carries the whole duration forward. Those writes skip the
 * fsync: the engine's transition that ends the segment comes next and writes
 * the same snapshot durably.
 */
import type { RunAccess, SegmentSettlement } from '../../kernel/index.js';
import { DIMENSIONS, type Dimension } from './budget.js';
import { recordBudgetEvent } from './events.js';
import { ledgerOf } from './ledger.js';
import { hardReached, overruns } from './limits.js';

function isDimension(value: unknown): value is Dimension {
  return DIMENSIONS.includes(value as Dimension);
}

export function settleSegment(settlement: SegmentSettlement, access: RunAccess): SegmentSettlement {
  const ledger = ledgerOf(access);
  const { budget } = ledger.state;
  const usage = ledger.usage();
  if (settlement.state === 'failed' && settlement.error.code === 'BUDGET_EXHAUSTED') {
    const named = settlement.error.details?.['dimension'];
    const reached = hardReached(budget, usage);
    ledger.state.exhausted = reached.length > 0 || !isDimension(named) ? reached : [named];
    ledger.persist({ durable: false });
    return { state: 'budget_exhausted', error: settlement.error };
  }
  ledger.persist({ durable: false });
  if (settlement.state === 'completed') {
    for (const dimension of overruns(budget, usage)) {
      recordBudgetEvent((entry, event) => access.recordEvent(entry, event), 'overrun', { dimension, usage: usage[dimension], hard: budget[dimension]?.hard ?? 0, version: ledger.state.version });
    }
  }
  return settlement;
}
