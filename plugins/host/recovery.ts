/**
 * Session start: runs of this cwd and session left active by a host that is
 * gone become `interrupted`; with UI, each interrupted run is offered for
 * resumption. A run resumed here has no live host tool call, so it only
 * replays journaled `tools.X` calls (docs/tools.md).
 */
import type { ExtensionContext } from '@earendil-works/pi-coding-agent';
import { messageOf } from '../../kernel/index.js';
import type { HostSession } from './host-session.js';
import { printable, printableLines } from '../../lib/terminal-text.js';
import { runsAllowed } from './trust-state.js';

/** Marks orphaned active runs interrupted; returns the runs now waiting for a resume. Never throws. */
export function recoverRuns(host: HostSession): { runId: string; name: string }[] {
  try {
    host.engine.recoverInterrupted(host.cwd);
    return host.engine
      .list(host.cwd)
      .filter((run) => run.state === 'interrupted' && !run.executing && !host.claimed(run))
      .map((run) => ({ runId: run.runId, name: run.workflow.name }));
  } catch {
    return [];
  }
}

/** Asks once per run; a confirmed run resumes and reports its end as a follow-up. Never throws; asks nothing where no run may resume. */
export async function offerResume(host: HostSession, ctx: ExtensionContext, runs: readonly { runId: string; name: string }[]): Promise<void> {
  // No run resumes in a project that is not trusted (nor excluded with --no-approve): there is nothing to offer.
  if (!runsAllowed(host.engine.trust)) return;
  for (const run of runs) {
    try {
      const resume = await ctx.ui.confirm('Resume workflow run?', `Workflow "${printable(run.name)}" (${run.runId}) was interrupted when Pi last stopped. Resume it now?`);
      if (!resume) continue;
      const handle = await host.engine.resume(host.cwd, run.runId, { expectedState: 'interrupted' });
      if (handle.held) ctx.ui.notify(printableLines(handle.held.message), 'warning');
      else host.watch(handle);
    } catch (error) {
      ctx.ui.notify(`Workflow run ${run.runId} could not resume: ${printableLines(messageOf(error))}`, 'error');
    }
  }
}
