/**
 * The standalone subagents entry (dist/subagents/index.js, spec 2
 * "Optional entries"): the five `subagents_*` tools and `/subagents`, over
 * the kernel plugin of plugin.ts. A standalone subagent is a durable kernel
 * run of a one-call script, so leaving this entry out (a package filter)
 * removes the tools and the command and nothing else: workflows keep their
 * agents and the nested `agent` / `get_subagent_result` tools. See
 * docs/subagents.md.
 */
import type { ExtensionAPI, ExtensionContext } from '@earendil-works/pi-coding-agent';
import { readCodemodeTools, resolveAgentDir, workflowPluginEntry, workflowPluginsState } from '../../kernel/index.js';
import { registerSubagentsCommand } from './command/index.js';
import { createSubagentsPlugin, SubagentsRuntime } from './plugin.js';
import { interruptedSubagents, offerRetry } from './recovery.js';
import { registerSubagentTools } from './tools/index.js';

export { createSubagentsPlugin, SubagentsRuntime, type SubagentsPiSide } from './plugin.js';
export { SubagentsSession, FOLLOW_UP_MESSAGE_TYPE, type SubagentReport, type SteerResult } from './session.js';
export { subagentRecord, type SubagentRecord } from './records.js';
export { PLUGIN_NAME, LAUNCH_OPTION, parseState, type SubagentState } from './state.js';
export { SUBAGENT_TOOL_NAMES } from './tools/index.js';
export { SUBAGENTS_COMMAND_MESSAGE } from './command/index.js';

export interface SubagentsEntryOptions {
  /** Pi's agent dir (the global `codemodeTools` setting); default `PI_CODING_AGENT_DIR` else `~/.pi/agent`. */
  readonly agentDir?: string;
}

/**
 * The Pi side of the entry: tools, `/subagents`, follow-up delivery and the
 * session-start retry offer. A Pi session created while a host session runs
 * (a workflow agent's, which loads this package again) registers nothing:
 * agents get no subagent tools.
 */
export function registerSubagents(pi: ExtensionAPI, runtime: SubagentsRuntime, options: SubagentsEntryOptions = {}): void {
  if (workflowPluginsState() === 'frozen') return;
  let context: ExtensionContext | undefined;
  runtime.attachPi({
    followUp: ({ customType, content, details }) => pi.sendMessage({ customType, content, display: true, details }, { deliverAs: 'followUp', triggerTurn: true }),
    contextUsage: () => context?.getContextUsage(),
  });
  registerSubagentTools(pi, () => runtime.session, readCodemodeTools(options.agentDir ?? resolveAgentDir()));
  registerSubagentsCommand(pi, () => runtime.session);
  pi.on('session_start', (_event, ctx) => {
    context = ctx;
    // The host may start its session before or after this handler runs (entry order): offer once it has.
    const off = runtime.onStarted((session) => {
      queueMicrotask(() => off());
      const interrupted = interruptedSubagents(session);
      if (ctx.hasUI && interrupted.length > 0) void offerRetry(session, ctx.ui, interrupted);
    });
  });
  pi.on('session_shutdown', () => {
    context = undefined;
  });
}

const runtime = new SubagentsRuntime();

/** The kernel plugin this entry contributes. */
export const subagentsPlugin = createSubagentsPlugin(runtime);

export default workflowPluginEntry(subagentsPlugin, (pi: ExtensionAPI) => registerSubagents(pi, runtime));
