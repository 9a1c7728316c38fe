/**
 * Reads what `/workflow` shows of a run directory (docs/storage.md): the
 * script (workflow.js), completed agents' results (journal.jsonl records of
 * kind `agent`), the effective system prompts (system-prompts.json version
 * 2 and its `.system-prompts/<sha256>.txt` bodies) and the session reference
 * of each attempt (snapshot.json `agentSessions`). Read-only, bounded and
 * never through a link or from a FIFO (the store's safe reads); every record
 * is validated, and what cannot be read is named in `problems` instead of
 * hiding the rest.
 */
import { join } from 'node:path';
// Not the kernel's index: `wfcli inspect` reads run files without loading the engine.
import { messageOf } from '../kernel/errors.js';
import type { JsonValue } from '../kernel/json.js';
import { formatAjvErrors } from '../kernel/json-schema.js';
import type { PrecompiledValidator } from '../kernel/precompiled.js';
import { READ_LIMITS, readRegular, readRegularIfExists } from '../kernel/store/safe-fs.js';
import * as validators from './compiled-schemas/run-files.js';

export interface StoredSystemPrompt {
  readonly agentId: string;
  readonly attempt: number;
  readonly turn: number;
  readonly sha256: string;
  /** The body under `.system-prompts/`; undefined when it is missing. */
  readonly text?: string;
}

/** What the command read from a run directory; `problems` names what could not be read. */
export interface RunFiles {
  readonly source?: string;
  readonly systemPrompts: readonly StoredSystemPrompt[];
  /** Journaled values of completed agents, by journal key (the agent ID). */
  readonly results: ReadonlyMap<string, JsonValue>;
  /** snapshot.json `agentSessions`: the session reference of each attempt, by agent ID. */
  readonly sessions: ReadonlyMap<string, readonly SessionReference[]>;
  readonly problems: readonly string[];
}

export interface SessionReference {
  readonly attempt: number;
  readonly reference: Readonly<Record<string, JsonValue>>;
}

// Compiled at build time (lib/compiled-schemas/run-files.ts): `wfcli inspect` loads no ajv compiler.
const validateAgentRecord = validators.agentRecord as unknown as PrecompiledValidator<{ kind: 'agent'; key: string; value: JsonValue }>;
const validatePromptRecord = validators.promptRecord as unknown as PrecompiledValidator<{ agentId: string; attempt: number; turn: number; sha256: string }>;
const validatePromptHeader = validators.promptHeader as unknown as PrecompiledValidator<{ version: 2 }>;
const validateSessions = validators.sessions as unknown as PrecompiledValidator<{ agentSessions?: Record<string, { attempt: number }[]> }>;

/** The file's text; undefined when it is missing, or (named in `problems`) when it cannot be read: a link, a FIFO, too large. */
function readText(file: string, maxBytes: number, problems: string[]): string | undefined {
  try {
    return readRegularIfExists(file, maxBytes)?.toString('utf8');
  } catch (error) {
    problems.push(messageOf(error));
    return undefined;
  }
}

/** Complete lines parsed as JSON; an unparsable line (a torn tail) is skipped and counted. */
function jsonLines(text: string): { values: unknown[]; bad: number } {
  const values: unknown[] = [];
  let bad = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      values.push(JSON.parse(line));
    } catch {
      bad += 1;
    }
  }
  return { values, bad };
}

export function readRunFiles(runDir: string): RunFiles {
  const problems: string[] = [];
  const source = readText(join(runDir, 'workflow.js'), READ_LIMITS.source, problems);
  if (source === undefined) problems.push('workflow.js cannot be read');

  const results = new Map<string, JsonValue>();
  const journal = jsonLines(readText(join(runDir, 'journal.jsonl'), READ_LIMITS.journal, problems) ?? '');
  for (const record of journal.values) if (validateAgentRecord(record)) results.set(record.key, record.value);
  if (journal.bad > 0) problems.push(`journal.jsonl has ${journal.bad} unreadable line(s)`);

  return { ...(source === undefined ? {} : { source }), results, systemPrompts: readSystemPrompts(runDir, problems), sessions: readSessions(runDir, problems), problems };
}

/** system-prompts.json version 2 and the bodies it names (a missing body leaves `text` out). */
export function readSystemPrompts(runDir: string, problems: string[] = []): StoredSystemPrompt[] {
  const index = readText(join(runDir, 'system-prompts.json'), READ_LIMITS.log, problems);
  if (index === undefined) return []; // no native agent started
  const { values, bad } = jsonLines(index);
  const [header, ...records] = values;
  if (!validatePromptHeader(header)) {
    problems.push('system-prompts.json is not a version-2 index');
    return [];
  }
  const prompts: StoredSystemPrompt[] = [];
  for (const record of records) {
    if (!validatePromptRecord(record)) {
      problems.push(`system-prompts.json has an invalid record: ${formatAjvErrors(validatePromptRecord.errors)}`);
      continue;
    }
    const text = readText(join(runDir, '.system-prompts', `${record.sha256}.txt`), READ_LIMITS.prompt, problems);
    prompts.push({ agentId: record.agentId, attempt: record.attempt, turn: record.turn, sha256: record.sha256, ...(text === undefined ? {} : { text }) });
  }
  if (bad > 0) problems.push(`system-prompts.json has ${bad} unreadable line(s)`);
  return prompts;
}

/** snapshot.json `agentSessions` alone (the dashboard's rows name each agent's transport). */
export function readSessions(runDir: string, problems: string[] = []): Map<string, SessionReference[]> {
  const sessions = new Map<string, SessionReference[]>();
  let snapshot: unknown;
  try {
    snapshot = JSON.parse(readRegular(join(runDir, 'snapshot.json'), READ_LIMITS.snapshot).toString('utf8'));
  } catch (error) {
    problems.push(`snapshot.json cannot be read: ${messageOf(error)}`);
    return sessions;
  }
  if (!validateSessions(snapshot)) {
    problems.push(`snapshot.json agentSessions is invalid: ${formatAjvErrors(validateSessions.errors)}`);
    return sessions;
  }
  for (const [agentId, entries] of Object.entries(snapshot.agentSessions ?? {})) {
    sessions.set(
      agentId,
      entries.map(({ attempt, ...reference }) => ({ attempt, reference: reference as Record<string, JsonValue> })),
    );
  }
  return sessions;
}
