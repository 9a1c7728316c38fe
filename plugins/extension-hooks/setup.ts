/**
 * Registered setup hooks (spec 2 "AgentSetupHook"): ascending priority, name
 * breaks ties, rerun fresh for every attempt. They may narrow the agent, never
 * widen it, and never move its cwd.
 *
 * Narrowing is judged against what preparation and core resolution left:
 * - tools: when the root's tools are known (`prepared.rootTools`, always
 *   inside Pi) `sessionInput.tools` starts as the concrete names selected from
 *   them, and a name outside that list widens; otherwise it starts as the
 *   prepared selectors, and a name those selectors disable widens;
 * - `sessionInput.resourcePolicy` (`{ tools?, skills?, extensions? }`): its
 *   tools like `sessionInput.tools`; skills and extensions widen with a name
 *   the prepared selectors disable.
 * Only exact names can widen: patterns filter what was selected. The
 * transport applies the lists (`narrowSelection`) and fails a custom tool
 * named like a root tool the prepared policy left out with UNKNOWN_TOOL.
 */
import {
  RESULT_TOOL_NAME,
  WorkflowError,
  isWorkflowError,
  loadingRegistry,
  messageOf,
  wideningEntry,
  type AgentSetup,
  type AgentSetupContext,
  type SelectorKind,
} from '../../kernel/index.js';

const POLICY_KEYS: readonly SelectorKind[] = ['tools', 'skills', 'extensions'];

function widened(hook: string, kind: SelectorKind, entry: string): WorkflowError {
  return new WorkflowError('INVALID_METADATA', `Setup hook "${hook}" widened the agent's ${kind} with "${entry}"; setup hooks may only narrow`, { hook, [kind === 'tools' ? 'tool' : kind]: entry });
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}

/** Throws INVALID_METADATA when the hook's lists enable anything the agent was not given. */
function checkNarrowing(agent: AgentSetup, hook: string, startTools: readonly string[]): void {
  const { prepared, sessionInput } = agent;
  if (!isStringList(sessionInput.tools)) throw new WorkflowError('INVALID_METADATA', `Setup hook "${hook}" set sessionInput.tools to something other than an array of strings`, { hook });
  // The agent's own tools (the result tool, custom tools) are always active; naming them widens nothing.
  const own = new Set([RESULT_TOOL_NAME, ...(sessionInput.customTools ?? []).map((tool) => tool.name)]);
  const toolWidening = (list: readonly string[]) =>
    prepared.rootTools === undefined ? wideningEntry(prepared.tools, list, 'tools', 'selectors', own) : wideningEntry(startTools, list, 'tools', 'names', own);
  const tool = toolWidening(sessionInput.tools);
  if (tool !== undefined) throw widened(hook, 'tools', tool);
  const policy = sessionInput.resourcePolicy;
  if (policy === undefined) return;
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy) || Object.keys(policy).some((key) => !(POLICY_KEYS as readonly string[]).includes(key))) {
    throw new WorkflowError('INVALID_METADATA', `Setup hook "${hook}" set a resourcePolicy other than { tools?, skills?, extensions? }`, { hook });
  }
  for (const kind of POLICY_KEYS) {
    const list = policy[kind];
    if (list === undefined) continue;
    if (!isStringList(list)) throw new WorkflowError('INVALID_METADATA', `Setup hook "${hook}" set resourcePolicy.${kind} to something other than an array of strings`, { hook });
    const entry = kind === 'tools' ? toolWidening(list) : wideningEntry(prepared[kind], list, kind, 'selectors');
    if (entry !== undefined) throw widened(hook, kind, entry);
  }
}

export async function runSetupHooks(agent: AgentSetup, context: AgentSetupContext): Promise<AgentSetup> {
  const hooks = loadingRegistry().setupHooks();
  if (hooks.length === 0) return agent;
  const { cwd } = agent.sessionInput;
  const { prepared } = agent;
  const startTools = [...agent.sessionInput.tools];
  const optionCwd = (agent.options as { cwd?: unknown }).cwd;
  for (const hook of hooks) {
    if (context.signal.aborted) throw new WorkflowError('CANCELLED', 'agent setup was cancelled');
    try {
      await hook.setup(agent, context);
    } catch (error) {
      if (isWorkflowError(error)) throw error;
      throw new WorkflowError('AGENT_FAILED', `Setup hook "${hook.name}" of ${hook.extension.headline} failed: ${messageOf(error)}`, { hook: hook.name });
    }
    if (agent.sessionInput.cwd !== cwd || (agent.options as { cwd?: unknown }).cwd !== optionCwd) {
      throw new WorkflowError('INVALID_METADATA', `Setup hook "${hook.name}" tried to change the agent cwd; setup hooks cannot move an agent`, { hook: hook.name });
    }
    if (agent.prepared !== prepared) {
      throw new WorkflowError('INVALID_METADATA', `Setup hook "${hook.name}" replaced the prepared session; it is immutable (narrow sessionInput instead)`, { hook: hook.name });
    }
    checkNarrowing(agent, hook.name, startTools);
  }
  if (context.signal.aborted) throw new WorkflowError('CANCELLED', 'agent setup was cancelled');
  return agent;
}
