/**
 * system-prompts.json: the full effective system prompt recorded at every
 * native agent start. Version 2: a header line, then one JSON record per line
 * (append-only); bodies are content-addressed under `.system-prompts/`.
 *
 * Most agents of a run share a few prompts, so the process remembers which
 * run dirs have their index and which bodies it stored: a record is then one
 * append. Bodies are written atomically (a torn body would keep its name
 * forever) but not fsynced: like agent progress, a power loss may lose them.
 */
import { dirname, join } from 'node:path';
import { appendRegular, checkDirectories, entryKind, makeDirectory, sha256Hex, writeFailed, writeFileAtomic } from '../store/index.js';
import { SYSTEM_PROMPTS_DIR, SYSTEM_PROMPTS_FILE } from './run-entries.js';

export { SYSTEM_PROMPTS_DIR, SYSTEM_PROMPTS_FILE };

export interface SystemPromptRecord {
  readonly agentId: string;
  readonly nativeSessionId: string | null;
  readonly attempt: number;
  readonly turn: number;
}

/** Run dirs whose index and body directory exist, with the bodies stored there; the oldest dirs are forgotten. */
const known = new Map<string, Set<string>>();
const KNOWN_LIMIT = 64;

/** Creates the body directory and the index header once per run dir; never through a link (store safe-fs). */
function storedBodies(runDir: string): Set<string> {
  const cached = known.get(runDir);
  if (cached) return cached;
  const dir = join(runDir, SYSTEM_PROMPTS_DIR);
  try {
    checkDirectories(dirname(runDir), runDir);
    makeDirectory(dir, 0o700);
  } catch (error) {
    throw writeFailed(dir, error);
  }
  const index = join(runDir, SYSTEM_PROMPTS_FILE);
  if (entryKind(index) === undefined) appendRegular(index, `${JSON.stringify({ version: 2 })}\n`, 0o600);
  const bodies = new Set<string>();
  if (known.size >= KNOWN_LIMIT) known.delete(known.keys().next().value as string);
  known.set(runDir, bodies);
  return bodies;
}

export function recordSystemPrompt(runDir: string, record: SystemPromptRecord, prompt: string): string {
  const sha256 = sha256Hex(prompt);
  const bodies = storedBodies(runDir);
  if (!bodies.has(sha256)) {
    const body = join(runDir, SYSTEM_PROMPTS_DIR, `${sha256}.txt`);
    // A body already there is the same text (its name is its hash); anything else there is replaced by the rename, never followed.
    if (entryKind(body) !== 'regular file') writeFileAtomic(body, prompt, 0o600, { durable: false, within: runDir });
    bodies.add(sha256);
  }
  appendRegular(join(runDir, SYSTEM_PROMPTS_FILE), `${JSON.stringify({ ...record, sha256, at: new Date().toISOString() })}\n`, 0o600);
  return sha256;
}
