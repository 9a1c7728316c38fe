/**
 * A remote attempt's transcript on the host: the worker's native Pi session
 * file, written where the Pi transport writes its agents' (the run's folder
 * in Pi's session storage, lib/transcripts/location.ts), so `wfcli
 * transcript`, `/workflow` and reports read it like a local one. The path is
 * named when the session is created (the engine persists it in the
 * attempt's reference); the file appears, whole, when the worker answers.
 */
import path from 'node:path';
import { writeFileAtomic, WorkflowError, messageOf } from '../../kernel/index.js';
import { ensureRunTranscriptDir } from '../../lib/transcripts/location.js';
import type { AttemptOutcome } from './attempt.js';

/** `<dir>/<timestamp>_remote-<digest>.jsonl`: Pi's naming, with a name that cannot clash with a local session's. */
export function plannedTranscript(dir: string, workflowKey: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return path.join(dir, `${stamp}_remote-${workflowKey}.jsonl`);
}

/** Writes the worker's transcript (0600, atomically); a host write failure is a STORE_WRITE_FAILED-like fault of the attempt. */
export function saveTranscript(file: string, outcome: AttemptOutcome): string {
  try {
    ensureRunTranscriptDir(path.dirname(file));
    writeFileAtomic(file, outcome.transcript, 0o600, { durable: false });
    return file;
  } catch (error) {
    throw new WorkflowError('STORE_WRITE_FAILED', `the remote agent's transcript could not be written to ${file}: ${messageOf(error)}`);
  }
}
