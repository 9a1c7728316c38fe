/**
 * system-prompts.json: the full effective system prompt recorded at every
 * native agent start. Version 2: a header line, then one JSON record per line
 * (append-only); bodies are content-addressed under `.system-prompts/`.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SYSTEM_PROMPTS_FILE = 'system-prompts.json';
export const SYSTEM_PROMPTS_DIR = '.system-prompts';

export interface SystemPromptRecord {
  readonly agentId: string;
  readonly nativeSessionId: string | null;
  readonly attempt: number;
  readonly turn: number;
}

export function recordSystemPrompt(runDir: string, record: SystemPromptRecord, prompt: string): string {
  const sha256 = createHash('sha256').update(prompt).digest('hex');
  const dir = join(runDir, SYSTEM_PROMPTS_DIR);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const body = join(dir, `${sha256}.txt`);
  if (!existsSync(body)) writeFileSync(body, prompt, { mode: 0o600 });
  const index = join(runDir, SYSTEM_PROMPTS_FILE);
  if (!existsSync(index)) writeFileSync(index, `${JSON.stringify({ version: 2 })}\n`, { mode: 0o600 });
  appendFileSync(index, `${JSON.stringify({ ...record, sha256, at: new Date().toISOString() })}\n`);
  return sha256;
}
