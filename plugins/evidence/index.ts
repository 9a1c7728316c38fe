/**
 * The evidence plugin: `evidence(content)` stores a large string or JSON value
 * in the run's content-addressed `evidence/<sha256>.txt` and returns its
 * record. Resumed and retried runs get the record first stored.
 */
import { WorkflowError, boundaryText, workflowPluginEntry, type KernelPlugin, type PrimitiveDefinition } from '../../kernel/index.js';

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
    // Indentation grows with depth: a 0.4 MB value nested a thousand levels deep would print as 400 MB. The text is capped while it is written.
    const text = typeof content === 'string' ? content : boundaryText(content, 'The evidence content as indented JSON', { indent: 2 });
    if (!text.isWellFormed()) throw new WorkflowError('INVALID_METADATA', 'The evidence content holds a lone surrogate, which is not well-formed Unicode text; it would be stored as U+FFFD');
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
