/** The lines under the dashboard title: identity, delivery, failure, budget, pending decisions. */
import type { StatusSummary } from '../../../kernel/index.js';
import { printable } from '../../../lib/terminal-text.js';
import { budgetRows } from './budget.js';

export function runDetails(run: StatusSummary): string[] {
  const lines = [`Run ${run.runId} · ${run.launchMode} · ${run.executing ? 'executing in this session' : 'not executing'}`];
  if (run.parentRunId !== undefined) lines.push(`Retry of run ${run.parentRunId}`);
  if (run.failure !== undefined) lines.push(`${run.state === 'budget_exhausted' ? 'Halted' : 'Failed'}: ${run.failure.code} ${run.failure.message}`);
  for (const row of budgetRows(run)) lines.push(`Budget: ${row}`);
  for (const checkpoint of run.checkpoints.filter((entry) => entry.state === 'awaiting')) lines.push(`Checkpoint "${checkpoint.name}" awaits a decision: ${checkpoint.prompt}`);
  for (const proposal of run.proposals.filter((entry) => entry.state === 'pending')) lines.push(`Proposal ${proposal.id} (${proposal.owner}) awaits approval: ${proposal.summary}`);
  return lines.map(printable);
}
