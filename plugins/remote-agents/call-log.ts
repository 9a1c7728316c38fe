/**
 * Host tool calls of remote attempts, kept in the database where neither a
 * dead worker nor a dead host can take them back: a worker's proxy tool
 * (worker-tools.ts) appends a row per call and waits for its answer; the
 * host that runs the attempt's script reads the rows (host-calls.ts), runs
 * each tool and writes the answer into the row. Each write notifies
 * (notifications.ts): a call with the attempt's workflow ID on CALL_CHANNEL,
 * an answer with the row's ID on ANSWER_CHANNEL. Postgres delivers a
 * notification at commit, so the row it announces is readable.
 *
 * Anyone who can write these tables can forge rows: the host reads
 * arguments only up to MAX_ARGUMENT_BYTES (the database measures them
 * first), names and IDs only up to a bound, and answers once per row.
 */
import pg from 'pg';
import { USAGE_SCHEMA } from './usage-store.js';

export const CALL_CHANNEL = 'wfcli_remote_call';
export const ANSWER_CHANNEL = 'wfcli_remote_answer';
/** Arguments of one call, as JSON text: larger ones are refused, and the host never reads them. */
export const MAX_ARGUMENT_BYTES = 256 * 1024;
/** Names, call IDs and executions are read up to this many characters; a longer one is refused. */
export const MAX_NAME_CHARS = 160;

/** Run inside the migration lock (migrate.ts), after the usage table's DDL (same schema). */
export const CALL_DDL = [
  `CREATE TABLE IF NOT EXISTS ${USAGE_SCHEMA}.attempt_calls (
     id bigserial PRIMARY KEY,
     workflow_id text NOT NULL,
     execution text NOT NULL,
     call_id text NOT NULL,
     name text NOT NULL,
     arguments text NOT NULL,
     resources text,
     answer text,
     failed boolean,
     UNIQUE (workflow_id, execution, call_id))`,
  `CREATE INDEX IF NOT EXISTS attempt_calls_by_workflow ON ${USAGE_SCHEMA}.attempt_calls (workflow_id, id)`,
];

/** A call as the host reads it: `arguments` and `resources` are undefined when they were too large to read. */
export interface CallRow {
  readonly id: number;
  readonly execution: string;
  readonly callId: string;
  readonly name: string;
  readonly bytes: number;
  readonly arguments: string | undefined;
  readonly resources: string | undefined;
  readonly answered: boolean;
}

/** What the worker's proxy returns to its model: the tool's text, or an error text. */
export interface CallAnswer {
  readonly failed: boolean;
  readonly text: string;
}

/** What a worker writes of a call. */
export interface CallRecord {
  readonly workflowId: string;
  readonly execution: string;
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
  readonly resources: string | undefined;
}

export class CallLog {
  readonly #pool: pg.Pool;

  constructor(database: string) {
    this.#pool = new pg.Pool({ connectionString: database, max: 2, application_name: 'wfcli remote calls' });
    // An idle client's error (the server restarted) must not end the process; the next query reconnects.
    this.#pool.on('error', () => undefined);
  }

  /** A worker's call; the same call written again (a retried write) keeps its row. Returns the row's ID. */
  async record(call: CallRecord): Promise<number> {
    const { rows } = await this.#pool.query<{ id: string }>(
      `WITH call AS (
         INSERT INTO ${USAGE_SCHEMA}.attempt_calls (workflow_id, execution, call_id, name, arguments, resources) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (workflow_id, execution, call_id) DO UPDATE SET call_id = EXCLUDED.call_id RETURNING id)
       SELECT id, pg_notify('${CALL_CHANNEL}', $1) FROM call`,
      [call.workflowId, call.execution, call.callId, call.name, call.arguments, call.resources ?? null],
    );
    return Number(rows[0]?.id);
  }

  /** The answer to a call, once the host wrote it. */
  async answerOf(id: number): Promise<CallAnswer | undefined> {
    const { rows } = await this.#pool.query<{ answer: string | null; failed: boolean | null }>(`SELECT answer, failed FROM ${USAGE_SCHEMA}.attempt_calls WHERE id = $1`, [id]);
    const row = rows[0];
    return row === undefined || row.answer === null ? undefined : { failed: row.failed !== false, text: row.answer };
  }

  /** At most `limit` calls of the attempt after row `after`, oldest first, each bounded as the header says. */
  async after(workflowId: string, after: number, limit: number): Promise<CallRow[]> {
    const { rows } = await this.#pool.query<{ id: string; execution: string; call_id: string; name: string; bytes: number; arguments: string | null; resources: string | null; answered: boolean }>(
      `SELECT id, left(execution, ${MAX_NAME_CHARS + 1}) AS execution, left(call_id, ${MAX_NAME_CHARS + 1}) AS call_id, left(name, ${MAX_NAME_CHARS + 1}) AS name,
              octet_length(arguments) AS bytes,
              CASE WHEN octet_length(arguments) <= ${MAX_ARGUMENT_BYTES} THEN arguments END AS arguments,
              CASE WHEN octet_length(resources) <= ${MAX_ARGUMENT_BYTES} THEN resources END AS resources,
              answer IS NOT NULL AS answered
       FROM ${USAGE_SCHEMA}.attempt_calls WHERE workflow_id = $1 AND id > $2 ORDER BY id LIMIT ${Math.max(1, Math.floor(limit))}`,
      [workflowId, after],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      execution: String(row.execution),
      callId: String(row.call_id),
      name: String(row.name),
      bytes: Number(row.bytes),
      arguments: row.arguments ?? undefined,
      resources: row.resources ?? undefined,
      answered: row.answered === true,
    }));
  }

  /** Answers a call unless it has an answer already; whether this one was written. */
  async answer(id: number, answer: CallAnswer): Promise<boolean> {
    const { rows } = await this.#pool.query(
      `WITH done AS (UPDATE ${USAGE_SCHEMA}.attempt_calls SET answer = $2, failed = $3 WHERE id = $1 AND answer IS NULL RETURNING id)
       SELECT pg_notify('${ANSWER_CHANNEL}', id::text) FROM done`,
      [id, answer.text, answer.failed],
    );
    return rows.length > 0;
  }

  /** Answers every unanswered call of the attempt after row `after` at once, in the database: the host reads none of them. */
  async answerAllAfter(workflowId: string, after: number, answer: CallAnswer): Promise<void> {
    await this.#pool.query(
      `WITH done AS (UPDATE ${USAGE_SCHEMA}.attempt_calls SET answer = $3, failed = $4 WHERE workflow_id = $1 AND id > $2 AND answer IS NULL RETURNING id)
       SELECT count(pg_notify('${ANSWER_CHANNEL}', id::text)) FROM done`,
      [workflowId, after, answer.text, answer.failed],
    );
  }

  async close(): Promise<void> {
    await this.#pool.end().catch(() => undefined);
  }
}
