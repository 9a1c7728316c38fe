/**
 * The first snapshot of a new run (a launch, or a retry's child): the
 * identity, the digest of its source, and the plugin state and proposals its
 * first segment prepared. What the run carries over from a source run comes
 * in `fields`.
 */
import { newRunId } from '../store/index.js';
import type { Segment } from './segment.js';
import { IDENTITY_VERSION, type RunSnapshot } from './snapshot.js';
import { sourceSha256 } from './source-digest.js';

export type NewRunFields = Pick<RunSnapshot, 'workflow' | 'args' | 'launchMode' | 'lineage'> &
  Partial<Pick<RunSnapshot, 'parentRunId' | 'plugins' | 'concurrency' | 'agentConfigurations' | 'scriptLanguage'>>;

export function newRunSnapshot(place: { readonly sessionId: string; readonly cwd: string }, source: string, segment: Segment, fields: NewRunFields): RunSnapshot {
  const now = new Date().toISOString();
  return {
    identityVersion: IDENTITY_VERSION,
    runId: newRunId(),
    sessionId: place.sessionId,
    cwd: place.cwd,
    state: 'running',
    createdAt: now,
    updatedAt: now,
    checkpoints: {},
    agents: {},
    agentConfigurations: {},
    agentSessions: {},
    ...fields,
    sourceSha256: sourceSha256(source),
    plugins: { ...fields.plugins, ...Object.fromEntries(segment.pluginState) },
    proposals: Object.fromEntries(segment.proposals),
  };
}
