/**
 * Session start: standalone subagents of this session that a dead host left
 * active are marked `interrupted` (the engine's recovery, the same the host
 * runs), and with a UI each is offered for retry, one confirmation each; a
 * confirmed one continues and reports its end as a follow-up. Without a UI
 * they stay `interrupted` for `subagents_retry` and `/subagents`.
 */
import type { ExtensionContext } from '@earendil-works/pi-coding-agent';
import { messageOf } from '../../kernel/index.js';
import type { SubagentsSession } from './session.js';
import { printable, printableLines } from '../../lib/terminal-text.js';

/** Marks orphaned runs interrupted; returns the interrupted subagents. Never throws. */
export function interruptedSubagents(session: SubagentsSession): { runId: string; label: string }[] {
  try {
    session.host.engine.recoverInterrupted(session.host.cwd);
    return session
      .list()
      .filter((record) => record.state === 'interrupted' && !record.executing)
      .map(({ runId, label }) => ({ runId, label }));
  } catch {
    return [];
  }
}

/** Asks once per subagent; never throws. */
export async function offerRetry(session: SubagentsSession, ui: ExtensionContext['ui'], subagents: readonly { runId: string; label: string }[]): Promise<void> {
  for (const subagent of subagents) {
    try {
      const retry = await ui.confirm('Retry subagent?', `Subagent "${printable(subagent.label)}" (${subagent.runId}) was interrupted when Pi last stopped. Retry it now?`);
      if (!retry || session.closed) continue;
      const report = await session.retry(subagent.runId, { expectedState: 'interrupted', foreground: false });
      if ('held' in report) ui.notify(printableLines(report.held.message), 'warning');
    } catch (error) {
      ui.notify(`Subagent ${subagent.runId} could not be retried: ${printableLines(messageOf(error))}`, 'error');
    }
  }
}
