/**
 * The evidence plugin: `evidence(content)` stores a large string or JSON value
 * in the run's content-addressed `evidence/<sha256>.txt` and returns its
 * record. Resumed and retried runs get the record first stored.
 */
import { WorkflowError, workflowPluginEntry, type KernelPlugin, type PrimitiveDefinition } from '../../kernel/index.js';

export const PLUGIN_NAME = 'evidence';

export interface EvidenceRecord {
  readonly ref: string;
  readonly sha256: string;
  readonly path: string;
  readonly bytes: number;
}

export const evidencePrimitive: PrimitiveDefinition = {
  name: 'evidence',
  kind: 'effect',
  run(call, context) {
    if (call.args.length !== 1 || call.args[0] === undefined) throw new WorkflowError('INVALID_METADATA', 'evidence takes exactly one string or JSON value');
    const [content] = call.args;
    const text = typeof content === 'string' ? content : JSON.stringify(content, null, 2);
    const stored = context.writeEvidence(text);
    const record: EvidenceRecord = { ref: `evidence:${stored.sha256}`, sha256: stored.sha256, path: stored.path, bytes: stored.bytes };
    return { ...record };
  },
};

export const evidencePlugin: KernelPlugin = {
  name: PLUGIN_NAME,
  provides: { primitives: [evidencePrimitive.name] },
  apply(kernel) {
    kernel.hooks.registry.primitives.tap(PLUGIN_NAME, (primitives) => [...primitives, evidencePrimitive]);
  },
};

/** The plugin entry (dist/plugins/evidence/index.js): contributes the plugin to the host. */
export default workflowPluginEntry(evidencePlugin);
