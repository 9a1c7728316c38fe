/**
 * An agent's own menu (spec 1 "/workflow command" rules 1, 5): copy its ID
 * and worktree, open its system prompts, transcripts and result read-only, and the
 * extensions' attempt actions for its latest attempt. Failures become
 * notifications; the dashboard opens again afterwards.
 */
import { copyToClipboard } from '@earendil-works/pi-coding-agent';
import { loadingRegistry, messageOf, type StatusSummary } from '../../../kernel/index.js';
import { attemptActionUi } from '../../../lib/pi-ui/attempt-ui.js';
import { printable, printableLines } from '../../../lib/terminal-text.js';
import { agentActions } from '../dashboard/actions.js';
import { attemptContext, latestAttempt, offeredAttemptActions } from '../dashboard/attempt-actions.js';
import { agentDocuments, missingPromptBodies, transcriptActions } from '../dashboard/documents.js';
import { readTranscript } from '../../../lib/transcripts/text.js';
import { agentText } from '../dashboard/tree.js';
import type { FlowDeps } from './dashboard-flow.js';
import { openReadOnly, runFilesOf, transportsOf } from './documents.js';

const BACK = 'Back';

export async function agentMenu(deps: FlowDeps, run: StatusSummary, agentId: string): Promise<void> {
  const { ui } = deps.ctx;
  const agent = run.agents.find((entry) => entry.id === agentId);
  if (agent === undefined) return;
  const files = runFilesOf(deps, run);
  const title = [`${agentText(agent, transportsOf(deps, run).get(agent.id))}`, `Agent ${agent.id}`];
  const missing = files === undefined ? 0 : missingPromptBodies(agent, files);
  if (missing > 0) title.push(`${missing} system prompt body(ies) missing from .system-prompts`);
  title.push(files === undefined ? 'Stored prompts and results: the run directory is not known for this run' : 'Agent prompts are not stored (see the run script)');

  const latest = files === undefined ? undefined : latestAttempt(agent, files.sessions.get(agent.id) ?? []);
  const signal = new AbortController();
  const context = latest === undefined ? undefined : attemptContext(run, agent, latest, attemptActionUi(deps.ctx.ui), signal.signal);
  const attempt = context === undefined || latest === undefined ? { offered: [], hidden: [] } : offeredAttemptActions(loadingRegistry().attemptActions(), context, latest.attempt);
  for (const note of attempt.hidden) ui.notify(printableLines(note), 'warning');

  const actions = [...agentActions(run, agent), ...(files === undefined ? [] : [...agentDocuments(agent, files), ...transcriptActions(agent, files)]), ...attempt.offered];
  const labels = actions.map((action) => printable(action.label));
  const choice = await ui.select(title.join('\n'), [...labels, BACK]);
  const action = actions[labels.indexOf(choice ?? BACK)];
  try {
    if (action?.kind === 'copy') {
      try {
        await (deps.copy ?? copyToClipboard)(action.text);
        ui.notify(`Copied the ${action.what}: ${printable(action.text)}`, 'info');
      } catch (error) {
        ui.notify(`Could not copy the ${action.what}: ${printableLines(messageOf(error))}`, 'error');
      }
    } else if (action?.kind === 'open') {
      await openReadOnly(deps, action);
    } else if (action?.kind === 'transcript') {
      let text: string;
      try {
        text = readTranscript(action.file);
      } catch (error) {
        ui.notify(printableLines(`Cannot read the transcript ${action.file}: ${messageOf(error)}`), 'error');
        return;
      }
      await openReadOnly(deps, { kind: 'open', label: action.label, title: action.title, text: printableLines(text) });
    } else if (action?.kind === 'attempt' && context !== undefined) {
      try {
        await action.action.run(context);
      } catch (error) {
        ui.notify(`${printable(action.label)} failed: ${printableLines(messageOf(error))}`, 'error');
      }
    }
  } finally {
    // The menu is done with this attempt: work an action left running learns it through the signal.
    signal.abort();
  }
}
