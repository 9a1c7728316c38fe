/**
 * `/subagents`: this session's standalone subagents. With a UI the picker,
 * the live dashboards and the actions (flow.ts); without one a read-only
 * listing (a session message, and standard output in print mode, like
 * `/workflow`'s), and changes go through the subagent tools.
 */
import type { ExtensionAPI, ExtensionCommandContext } from '@earendil-works/pi-coding-agent';
import { messageOf } from '../../../kernel/index.js';
import { reportCommand } from '../../../lib/pi-ui/report.js';
import type { SubagentsSession } from '../session.js';
import { listingText } from './describe.js';
import { openPicker } from './flow.js';

/** The message type of what `/subagents` reports into the session when there is no UI. */
export const SUBAGENTS_COMMAND_MESSAGE = 'subagents-command';

export function registerSubagentsCommand(pi: ExtensionAPI, session: () => SubagentsSession | undefined): void {
  pi.registerCommand('subagents', {
    description: 'Standalone subagents of this session: live dashboard, steer, stop, retry',
    handler: async (args, ctx) => {
      try {
        await subagentsCommand(pi, session(), args.trim(), ctx);
      } catch (error) {
        report(pi, ctx, `/subagents failed: ${messageOf(error)}`, 'error');
      }
    },
  });
}

function report(pi: ExtensionAPI, ctx: ExtensionCommandContext, text: string, level: 'info' | 'error'): void {
  reportCommand(pi, ctx, SUBAGENTS_COMMAND_MESSAGE, text, level);
}

async function subagentsCommand(pi: ExtensionAPI, session: SubagentsSession | undefined, args: string, ctx: ExtensionCommandContext): Promise<void> {
  if (session === undefined) return report(pi, ctx, 'The standalone subagents have not started in this session (the workflow host entry starts them)', 'error');
  if (args !== '') {
    const how = ctx.hasUI ? 'run /subagents and pick a subagent for its actions' : 'without a UI, use the subagent tools (subagents_steer, subagents_stop, subagents_retry)';
    return report(pi, ctx, `/subagents takes no arguments (got "${args}"); ${how}.`, 'error');
  }
  if (!ctx.hasUI) return report(pi, ctx, listingText({ cwd: session.host.cwd, sessionId: session.host.sessionId, records: session.list() }), 'info');
  await openPicker({ session, ctx });
}
