/**
 * An attempt's native Pi session file (its transcript), written by Pi's own
 * persisting `SessionManager` in Pi's format, in the run's folder of Pi's
 * session storage (lib/transcripts/location.ts). Pi creates a session file
 * with the process umask (0644) and only once the first answer arrives; the
 * transport writes it itself once the session is ready: header and the
 * entries so far, mode 0600, never over an existing file. Pi then appends
 * every entry as it happens, so the file follows a running agent.
 */
import { writeFileSync } from 'node:fs';
import { SessionManager } from '@earendil-works/pi-coding-agent';
import { WorkflowError, isWorkflowError, messageOf } from '../../kernel/index.js';
import { dirname } from 'node:path';
import { ensureRunTranscriptDir } from '../../lib/transcripts/location.js';

/**
 * Made if missing and checked (a real folder of ours, no link) at every
 * attempt and again right before its file is written: a script's shell may
 * swap the folder for a link between two attempts (issue 35).
 */
function ensureFolder(dir: string): void {
  try {
    ensureRunTranscriptDir(dir);
  } catch (error) {
    throw new WorkflowError('AGENT_FAILED', `the agent's transcript folder ${dir} cannot be used: ${messageOf(error)}`, { path: dir });
  }
}

/** A manager for a new session in `dir`; nothing is on disk before `writeTranscript`. */
export function transcriptManager(cwd: string, dir: string): SessionManager {
  ensureFolder(dir);
  return SessionManager.create(cwd, dir);
}

/** Writes the session file (0600) and switches Pi to appending to it; returns its absolute path. */
export function writeTranscript(manager: SessionManager): string {
  const file = manager.getSessionFile();
  const header = manager.getHeader();
  if (file === undefined || header === null) throw new WorkflowError('AGENT_FAILED', 'the Pi session has no session file to write');
  const text = [header, ...manager.getEntries()].map((entry) => `${JSON.stringify(entry)}\n`).join('');
  ensureFolder(dirname(file));
  try {
    writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if (isWorkflowError(error)) throw error;
    throw new WorkflowError('AGENT_FAILED', `the agent's transcript ${file} cannot be written: ${messageOf(error)}`, { path: file });
  }
  // Pi reads the file back and appends from now on (its flushed state), keeping the file's mode.
  manager.setSessionFile(file);
  return file;
}
