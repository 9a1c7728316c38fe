/**
 * What `/subagents` opens of a standalone run's directory, read-only: the
 * prompt (the run's `args.prompt` in snapshot.json), the result
 * (result.json), and the session reference of each attempt (snapshot.json
 * `agentSessions`) for attempt actions. Every read is bounded, never through
 * a link or from a FIFO, and validated; what cannot be read is named in
 * `problems` instead of hiding the rest.
 */
import { join } from 'node:path';
import { READ_LIMITS, createAjv, formatAjvErrors, messageOf, readRegular, readResultText as readStoredResult, type JsonValue } from '../../kernel/index.js';

export interface StoredAttempt {
  readonly attempt: number;
  readonly reference: Readonly<Record<string, JsonValue>>;
}

export interface StoredSubagent {
  readonly prompt?: string;
  /** Session references of the top-level agent's attempts, in order. */
  readonly attempts: readonly StoredAttempt[];
  readonly problems: readonly string[];
}

interface StoredSnapshot {
  readonly args?: { readonly prompt?: unknown };
  readonly agents?: Readonly<Record<string, { readonly parentId?: unknown }>>;
  readonly agentSessions?: Readonly<Record<string, readonly ({ readonly attempt: number } & Record<string, JsonValue>)[]>>;
}

const validSnapshot = createAjv().compile<StoredSnapshot>({
  type: 'object',
  properties: {
    args: { type: 'object', properties: { prompt: { type: 'string' } } },
    agents: { type: 'object', additionalProperties: { type: 'object', properties: { parentId: { type: 'string' } } } },
    agentSessions: {
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'object', required: ['attempt'], properties: { attempt: { type: 'integer', minimum: 1 } } } },
    },
  },
});

export function readStoredSubagent(runDir: string): StoredSubagent {
  let snapshot: unknown;
  try {
    snapshot = JSON.parse(readRegular(join(runDir, 'snapshot.json'), READ_LIMITS.snapshot).toString('utf8'));
  } catch (error) {
    return { attempts: [], problems: [`snapshot.json cannot be read: ${messageOf(error)}`] };
  }
  if (!validSnapshot(snapshot)) return { attempts: [], problems: [`snapshot.json: ${formatAjvErrors(validSnapshot.errors)}`] };
  const prompt = snapshot.args?.prompt;
  const topLevel = Object.entries(snapshot.agents ?? {}).find(([, agent]) => agent.parentId === undefined)?.[0];
  const attempts = (topLevel === undefined ? [] : (snapshot.agentSessions?.[topLevel] ?? [])).map(({ attempt, ...reference }) => ({ attempt, reference }));
  return { ...(typeof prompt === 'string' ? { prompt } : {}), attempts, problems: typeof prompt === 'string' ? [] : ['snapshot.json holds no prompt (args.prompt)'] };
}

/** The completed value as text: a string as it is, anything else as pretty JSON. */
export function readResultText(resultPath: string): string {
  const value = JSON.parse(readStoredResult(resultPath)) as JsonValue;
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}
