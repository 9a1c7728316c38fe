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
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../store/index.js';

export const SYSTEM_PROMPTS_FILE = 'system-prompts.json';
export const SYSTEM_PROMPTS_DIR = '.system-prompts';

export interface SystemPromptRecord {
  readonly agentId: string;
  readonly nativeSessionId: string | null;
  readonly attempt: number;
  readonly turn: number;
}

/** Run dirs whose index and body directory exist, with the bodies stored there; the oldest dirs are forgotten. */
const known = new Map<string, Set<string>>();
const KNOWN_LIMIT = 64;

function storedBodies(runDir: string): Set<string> {
  const cached = known.get(runDir);
  if (cached) return cached;
  mkdirSync(join(runDir, SYSTEM_PROMPTS_DIR), { recursive: true, mode: 0o700 });
  const index = join(runDir, SYSTEM_PROMPTS_FILE);
  if (!existsSync(index)) writeFileSync(index, `${JSON.stringify({ version: 2 })}\n`, { mode: 0o600 });
  const bodies = new Set<string>();
  if (known.size >= KNOWN_LIMIT) known.delete(known.keys().next().value as string);
  known.set(runDir, bodies);
  return bodies;
}

export function recordSystemPrompt(runDir: string, record: SystemPromptRecord, prompt: string): string {
  const sha256 = createHash('sha256').update(prompt).digest('hex');
  const bodies = storedBodies(runDir);
  if (!bodies.has(sha256)) {
    const body = join(runDir, SYSTEM_PROMPTS_DIR, `${sha256}.txt`);
    if (!existsSync(body)) writeFileAtomic(body, prompt, 0o600, { durable: false });
    bodies.add(sha256);
  }
  appendFileSync(join(runDir, SYSTEM_PROMPTS_FILE), `${JSON.stringify({ ...record, sha256, at: new Date().toISOString() })}\n`);
  return sha256;
}
