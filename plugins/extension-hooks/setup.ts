/**
 * Registered setup hooks (spec 2 "AgentSetupHook"): ascending priority, name
 * breaks ties, rerun fresh for every attempt. They may narrow the agent, never
 * widen it, and never move its cwd.
 */
import { WorkflowError, isWorkflowError, loadingRegistry, messageOf, type AgentSetup, type AgentSetupContext } from '../../kernel/index.js';

function widened(before: readonly string[], after: readonly string[]): string | undefined {
  const allowed = new Set(before);
  return after.find((name) => !allowed.has(name));
}

export async function runSetupHooks(agent: AgentSetup, context: AgentSetupContext): Promise<AgentSetup> {
  const hooks = loadingRegistry().setupHooks();
  if (hooks.length === 0) return agent;
  const cwd = agent.sessionInput.cwd;
  const tools = [...agent.sessionInput.tools];
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
    const extra = widened(tools, agent.sessionInput.tools);
    if (extra !== undefined) {
      throw new WorkflowError('INVALID_METADATA', `Setup hook "${hook.name}" widened the agent's tools with "${extra}"; setup hooks may only narrow`, { hook: hook.name, tool: extra });
    }
  }
  if (context.signal.aborted) throw new WorkflowError('CANCELLED', 'agent setup was cancelled');
  // Custom tools named in the frozen excludeTools never reach the session.
  const excluded = new Set(agent.prepared.excludeTools);
  if (agent.sessionInput.customTools) agent.sessionInput.customTools = agent.sessionInput.customTools.filter((tool) => !excluded.has(tool.name));
  return agent;
}
