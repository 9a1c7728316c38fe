/**
 * What the dashboard offers (spec 1 "/workflow command" rules 1, 3, 5): the
 * Workflow root's run actions, by the run's state, and an agent's own
 * actions. Pure: the command performs them. Names, prompts and summaries in
 * labels and confirmations are shown, never acted on (lib/terminal-text.ts).
 */
import type { AgentSummary, StatusSummary } from '../../../kernel/index.js';
import { printable, printableLines } from '../../../lib/terminal-text.js';
import { isResolved } from './order.js';
import { agentWorktree } from './worktree.js';

export type RootAction =
  | { readonly kind: 'pause' | 'cancel-pause' | 'resume' | 'stop' | 'delete'; readonly label: string; readonly confirm?: string }
  | { readonly kind: 'launch-mode'; readonly label: string; readonly foreground: boolean }
  | { readonly kind: 'proposal'; readonly label: string; readonly confirm: string; readonly proposalId: string; readonly approved: boolean }
  | { readonly kind: 'checkpoint'; readonly label: string; readonly confirm: string; readonly name: string; readonly approved: boolean };

export type AgentAction = { readonly kind: 'copy'; readonly label: string; readonly text: string; readonly what: string };

export function rootActions(run: StatusSummary): RootAction[] {
  const actions: RootAction[] = [];
  const resolved = isResolved(run.state);
  // Decisions are final, so each asks again with what is being decided.
  for (const { name, prompt } of run.checkpoints.filter((entry) => entry.state === 'awaiting')) {
    for (const [approved, verb] of [[true, 'Approve'], [false, 'Reject']] as const) {
      const shown = printable(name);
      actions.push({ kind: 'checkpoint', label: `${verb} checkpoint "${shown}"`, confirm: `Checkpoint "${shown}": ${printableLines(prompt)}\n${verb} it? The decision is final.`, name, approved });
    }
  }
  for (const { id, owner, summary } of run.proposals.filter((entry) => entry.state === 'pending')) {
    for (const [approved, verb] of [[true, 'Approve'], [false, 'Reject']] as const) {
      const then = approved ? ' Approving resumes the run.' : '';
      const label = printable(`${verb} ${owner} proposal ${id}: ${summary}`);
      actions.push({ kind: 'proposal', label, confirm: `${printableLines(summary)}\n${verb} proposal ${printable(id)}?${then}`, proposalId: id, approved });
    }
  }
  if (run.executing && (run.state === 'running' || run.state === 'awaiting_input')) actions.push({ kind: 'pause', label: 'Pause (cooperative: active operations finish first)' });
  if (run.executing && run.state === 'pausing') actions.push({ kind: 'cancel-pause', label: 'Cancel pause (keep running)' });
  // Besides paused, interrupted and budget_exhausted runs, an active state with no executing
  // segment was left by a host that is gone: resuming recovers it.
  if (!run.executing && !resolved) actions.push({ kind: 'resume', label: 'Resume' });
  if (!resolved) {
    actions.push(
      run.launchMode === 'foreground'
        ? { kind: 'launch-mode', label: 'Move to background (completion arrives as a follow-up)', foreground: false }
        : { kind: 'launch-mode', label: 'Move to foreground', foreground: true },
    );
    actions.push({ kind: 'stop', label: 'Stop', confirm: `Stop run ${run.runId} (${printable(run.workflow.name)})? Stopping is immediate and irreversible.` });
  }
  if (resolved) {
    actions.push({ kind: 'delete', label: 'Delete', confirm: `Delete run ${run.runId} (${printable(run.workflow.name)}) and its stored artifacts? Host transcripts stay in the session storage.` });
  }
  return actions;
}

/** An agent's own actions: copy its ID, and the branch and path of the worktree it works in. */
export function agentActions(run: StatusSummary, agent: AgentSummary): AgentAction[] {
  const actions: AgentAction[] = [{ kind: 'copy', label: 'Copy agent ID', text: agent.id, what: 'agent ID' }];
  const worktree = agentWorktree(run, agent);
  if (worktree) {
    actions.push({ kind: 'copy', label: `Copy worktree branch (${printable(worktree.branch)})`, text: worktree.branch, what: 'worktree branch' });
    actions.push({ kind: 'copy', label: `Copy worktree path (${printable(worktree.path)})`, text: worktree.path, what: 'worktree path' });
  }
  return actions;
}
