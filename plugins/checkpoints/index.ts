/**
 * The checkpoints plugin: `checkpoint({ name, prompt, context })` waits for a
 * human decision. The run is `awaiting_input` meanwhile; the decision is
 * journaled, so resume and retry replay it.
 */
import { WorkflowError, compileOnFirstUse, workflowPluginEntry, type KernelPlugin, type PrimitiveDefinition } from '../../kernel/index.js';

export const PLUGIN_NAME = 'checkpoints';

/** Spec 1 "Limits". */
export const CHECKPOINT_PROMPT_BYTES = 1024;
export const CHECKPOINT_CONTEXT_BYTES = 4096;

const validate = compileOnFirstUse({
  type: 'object',
  additionalProperties: false,
  required: ['name', 'prompt'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 200 }, prompt: { type: 'string', minLength: 1 }, context: {} },
}, { strict: true, allErrors: false });

export const checkpointPrimitive: PrimitiveDefinition = {
  name: 'checkpoint',
  kind: 'effect',
  async run(call, context) {
    const [input] = call.args;
    if (!validate(input)) {
      throw new WorkflowError('INVALID_METADATA', 'checkpoint takes { name, prompt, context? } with a non-empty name and prompt');
    }
    const { name, prompt, context: detail } = input as { name: string; prompt: string; context?: unknown };
    if (Buffer.byteLength(prompt) > CHECKPOINT_PROMPT_BYTES) {
      throw new WorkflowError('INVALID_METADATA', `checkpoint "${name}" prompt exceeds ${CHECKPOINT_PROMPT_BYTES} bytes`, { name });
    }
    if (detail !== undefined && Buffer.byteLength(JSON.stringify(detail)) > CHECKPOINT_CONTEXT_BYTES) {
      throw new WorkflowError('INVALID_METADATA', `checkpoint "${name}" context exceeds ${CHECKPOINT_CONTEXT_BYTES} bytes when serialized`, { name });
    }
    const approved = await context.awaitDecision({ name, prompt, ...(detail === undefined ? {} : { context: detail as never }) });
    return approved ? 'approved' : 'rejected';
  },
};

export const checkpointsPlugin: KernelPlugin = {
  name: PLUGIN_NAME,
  provides: { primitives: [checkpointPrimitive.name] },
  apply(kernel) {
    kernel.hooks.registry.primitives.tap(PLUGIN_NAME, (primitives) => [...primitives, checkpointPrimitive]);
  },
};

/** The plugin entry (dist/plugins/checkpoints/index.js): contributes the plugin to the host. */
export default workflowPluginEntry(checkpointsPlugin);
