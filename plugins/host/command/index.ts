/**
 * `/workflow` (spec 1 "/workflow command"): the only workflow slash command.
 * With a UI it opens the run picker, the run dashboards and the alias screen;
 * without one it prints a read-only listing, and mutations go through the
 * workflow tools. The host entry registers it with a getter for the
 * session's host view.
 */
import type { ExtensionAPI, ExtensionCommandContext } from '@earendil-works/pi-coding-agent';
import { messageOf } from '../../../kernel/index.js';
import { reportCommand } from '../../../lib/pi-ui/report.js';
import { listingText } from '../dashboard/listing.js';
import { loadAliasView } from './alias-source.js';
import { openPicker } from './picker.js';
import { workflowRuns, type WorkflowHostView } from '../view.js';

/** The message type of what `/workflow` reports into the session when there is no UI. */
export const WORKFLOW_COMMAND_MESSAGE = 'workflow-command';

export const TRAJECTORY_DISABLED = 'The trajectory viewer is disabled: its entry (dist/trajectory/index.js) is not loaded in this session.';

export function registerWorkflowCommand(pi: ExtensionAPI, host: () => WorkflowHostView | undefined): void {
  pi.registerCommand('workflow', {
    description: 'Workflow runs of this session (dashboard and actions) and model aliases',
    getArgumentCompletions: (prefix) => ('trajectory'.startsWith(prefix.trim()) ? [{ value: 'trajectory', label: 'trajectory', description: 'the trajectory viewer' }] : null),
    handler: async (args, ctx) => {
      try {
        await workflowCommand(pi, host(), args.trim(), ctx);
      } catch (error) {
        report(pi, ctx, `/workflow failed: ${messageOf(error)}`, 'error');
      }
    },
  });
}

/** Without a UI, the text becomes a session message (and stdout in print mode): lib/pi-ui/report.ts. */
function report(pi: ExtensionAPI, ctx: ExtensionCommandContext, text: string, level: 'info' | 'error'): void {
  reportCommand(pi, ctx, WORKFLOW_COMMAND_MESSAGE, text, level);
}

async function workflowCommand(pi: ExtensionAPI, view: WorkflowHostView | undefined, args: string, ctx: ExtensionCommandContext): Promise<void> {
  if (view === undefined) return report(pi, ctx, 'The workflow runtime has not started in this session', 'error');
  // Spec rule 6: the subcommand stays even though the viewer is not there.
  if (args === 'trajectory') return report(pi, ctx, TRAJECTORY_DISABLED, 'info');
  if (args !== '') {
    const how = ctx.hasUI ? 'run /workflow and pick a run for its actions' : 'without a UI, use the workflow tools (workflow_resume, workflow_stop, workflow_respond)';
    return report(pi, ctx, `/workflow takes no arguments (got "${args}"); ${how}. The only subcommand is /workflow trajectory.`, 'error');
  }
  if (!ctx.hasUI) {
    const aliases = await loadAliasView(view);
    const text = listingText({
      cwd: view.cwd,
      sessionId: view.sessionId,
      runs: workflowRuns(view),
      aliases: aliases.rows,
      ...(aliases.problem === undefined ? {} : { aliasProblem: aliases.problem }),
    });
    return report(pi, ctx, text, 'info');
  }
  await openPicker({ pi, view, ctx });
}
