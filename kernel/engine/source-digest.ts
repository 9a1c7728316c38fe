/**
 * `workflow.js` is immutable (spec 1 "Run and its storage"): its SHA-256 is
 * recorded in snapshot.json when the run is created (`sourceSha256`), and a
 * resume or retry runs the stored source only while it still has that
 * digest. A run created before digests were recorded has none: its source is
 * taken as it is, and a resume records its digest, so every later resume of
 * that run is checked.
 */
import { join } from 'node:path';
import { WorkflowError } from '../errors.js';
import { SOURCE_FILE, readRunSource, sha256Hex } from '../store/index.js';
import type { RunSnapshot } from './snapshot.js';

/** SHA-256 of the source's UTF-8 bytes, lowercase hex (the bytes workflow.js holds). */
export function sourceSha256(source: string): string {
  return sha256Hex(source);
}

/** The stored source of a run and its digest; RESUME_INCOMPATIBLE when it is not the source the run was created with. */
export function readCheckedSource(runDir: string, snapshot: RunSnapshot, action: 'resume' | 'retry'): { readonly source: string; readonly sha256: string } {
  const source = readRunSource(runDir);
  const sha256 = sourceSha256(source);
  const expected = snapshot.sourceSha256;
  if (expected !== undefined && expected !== sha256) {
    const file = join(runDir, SOURCE_FILE);
    throw new WorkflowError(
      'RESUME_INCOMPATIBLE',
      `Cannot ${action} run ${snapshot.runId}: its workflow.js (${file}) was changed after the run was created (SHA-256 ${sha256}, recorded ${expected}). A run only executes the exact source it was created with; relaunch instead, with the edited script as a new run`,
      { reason: 'source_changed', path: file, sha256, expected },
    );
  }
  return { source, sha256 };
}
