/**
 * The Pi transport plugin: `agent(...)` attempts run as in-process Pi
 * sessions through the SDK. It answers `transport.select` for every agent
 * (load a different transport plugin before it to take over some agents) and
 * adds the agent dir's models to `preparation.models`.
 */
import { TRANSPORT_CAPABILITY, workflowPluginEntry, type KernelPlugin } from '../../kernel/index.js';
import { addPiModels } from './inventory.js';
import { createPiTransport, type PiTransportOptions } from './transport.js';

export const PLUGIN_NAME = 'pi-transport';

export function createPiTransportPlugin(options: PiTransportOptions = {}): KernelPlugin {
  const transport = createPiTransport(options);
  return {
    name: PLUGIN_NAME,
    provides: { capabilities: [TRANSPORT_CAPABILITY] },
    apply(kernel) {
      kernel.hooks.transport.select.tap(PLUGIN_NAME, () => transport);
      kernel.hooks.preparation.models.tapPromise(PLUGIN_NAME, (inventory, input) => addPiModels(inventory, options.agentDir ?? input.agentDir));
    },
  };
}

/** The plugin with its defaults: the user's agent dir and Pi's trust decision. */
export const piTransportPlugin: KernelPlugin = createPiTransportPlugin();
/** The plugin entry (dist/plugins/pi-transport/index.js): contributes the plugin to the host. */
export default workflowPluginEntry(piTransportPlugin);

export { createPiTransport, TRANSPORT_NAME, type PiTransportOptions } from './transport.js';
export { RESULT_TOOL_NAME, RESULT_EXTENSION_NAME, ResultToolController, createResultTool, type ResultToolOptions } from './result-tool.js';
export { resolveModel, modelReferenceCandidates, THINKING_LEVELS, type ModelReference, type ResolvedModel } from './models.js';
export { PiWorkflowSession, ProgressChannel, type TurnResultTool } from './session.js';
export { builtinToolNames, canonicalPath, toolAllowlist, type ToolSelectionInput, type SelectorInput } from './selection.js';
export { sessionStats } from './stats.js';
