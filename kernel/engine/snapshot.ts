/**
 * snapshot.json: the authoritative record of a run (spec 1 "Run and its
 * storage"). Validated against its schema (snapshot-schema.ts) whenever it is
 * read back; docs/runs.md lists every field.
 */
import { formatAjvErrors } from '../json-schema.js';
import type { PrecompiledValidator } from '../precompiled.js';
import { validate as compiledSnapshot } from '../compiled-schemas/snapshot.js';
import { WorkflowError } from '../errors.js';

/** Identity version 6 is required to resume (spec 1 "Versioning"). */
export const IDENTITY_VERSION = 6;

export { SCRIPT_LANGUAGE } from '../script-language.js';

export type { AgentSummary, CheckpointRecord, FailureInfo, RunSnapshot } from '../contracts/run-snapshot.js';
import type { RunSnapshot } from '../contracts/run-snapshot.js';

// Build-time compiled (snapshot-schema.ts): ajv's own code for the schema, errors included.
const validate = compiledSnapshot as unknown as PrecompiledValidator<unknown>;

/**
 * Checks a parsed snapshot.json and fills the defaults of fields older
 * snapshots may lack (launch mode defaults to background recovery).
 */
export function parseSnapshot(value: unknown, where: string): RunSnapshot {
  if (!validate(value)) {
    throw new WorkflowError('RUN_NOT_FOUND', `Run snapshot ${where} is corrupt: ${formatAjvErrors(validate.errors)}`, { reason: 'corrupt', path: where });
  }
  const raw = value as unknown as Partial<RunSnapshot> & Pick<RunSnapshot, 'runId'>;
  return {
    ...(raw as RunSnapshot),
    launchMode: raw.launchMode ?? 'background',
    lineage: raw.lineage ?? [],
    checkpoints: raw.checkpoints ?? {},
    agents: raw.agents ?? {},
    agentConfigurations: raw.agentConfigurations ?? {},
    agentSessions: raw.agentSessions ?? {},
    plugins: raw.plugins ?? {},
    proposals: raw.proposals ?? {},
  };
}
