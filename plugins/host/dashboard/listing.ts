/**
 * The read-only `/workflow` listing for hosts without UI (print, JSON modes):
 * the session's runs in attention order and the model aliases, which appear
 * even when there are no runs.
 */
import type { StatusSummary } from '../../../kernel/index.js';
import { printable } from '../../../lib/terminal-text.js';
import { aliasLine, type AliasRow } from './aliases.js';
import { runLine } from './describe.js';
import { orderRuns } from './order.js';

export interface ListingInput {
  readonly cwd: string;
  readonly sessionId: string;
  readonly runs: readonly StatusSummary[];
  readonly aliases: readonly AliasRow[];
  /** Why aliases could not be read completely (invalid settings), shown instead of hiding them. */
  readonly aliasProblem?: string;
}

export function listingText(input: ListingInput): string {
  const runs = orderRuns(input.runs);
  const lines = [printable(`Workflow runs of session ${input.sessionId} in ${input.cwd}:`)];
  lines.push(...(runs.length === 0 ? ['  (none)'] : runs.map((run) => `  ${runLine(run)}`)));
  lines.push('Model aliases:');
  if (input.aliasProblem !== undefined) lines.push(`  ${printable(input.aliasProblem)}`);
  lines.push(...(input.aliases.length === 0 ? ['  (none)'] : input.aliases.map((row) => `  ${aliasLine(row)}`)));
  lines.push('This listing is read-only without a UI; change runs with the workflow tools (workflow_resume, workflow_stop, workflow_respond).');
  return lines.join('\n');
}
