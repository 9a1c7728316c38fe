/**
 * `/workflow` (spec 1 "/workflow command"): the only workflow slash command.
 * With a UI it opens the run picker, the run dashboards and the alias screen;
 * without one it prints a read-only listing, and mutations go through the
 * workflow tools. The host entry registers it with a getter for the
 * session's host view.
 */
import { writeSync } from 'node:fs';
import type { ExtensionAPI, ExtensionCommandContext } from '@earendil-works/pi-coding-agent';
import { messageOf } from '../../../kernel/index.js';
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

/**
 * Without a UI, notifications go nowhere (print and JSON modes): the text
 * becomes a displayed custom message in the session, which JSON mode streams
 * and later prompts see. Print mode writes only the final assistant text to
 * stdout (its other stdout writes are redirected to stderr), so there the
 * text also goes straight to file descriptor 1: it is what `pi -p /workflow` asked for.
 */
function report(pi: ExtensionAPI, ctx: ExtensionCommandContext, text: string, level: 'info' | 'error'): void {
  if (ctx.hasUI) return ctx.ui.notify(text, level);
  pi.sendMessage({ customType: WORKFLOW_COMMAND_MESSAGE, content: text, display: true, details: { level } });
  if (ctx.mode === 'print') writeSync(level === 'error' ? 2 : 1, `${text}\n`);
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
