/**
 * Each finished turn of a remote attempt, as the host needs it while the
 * attempt runs: a worker appends one row per turn (the execution's
 * cumulative usage after it, and whether the agent had submitted its result
 * by then) and the host reads the rows it has not seen, in order, to report
 * every turn to the engine as a local session does. One row per turn rather
 * than the latest total: a host that reads late still sees the turn after
 * which a hard limit was reached, so the stop lands on the same turn however
 * fast the worker went on.
 */
import pg from 'pg';
import { USAGE_SCHEMA } from './usage-store.js';
import type { AttemptStats } from './attempt.js';

/** Run inside the migration lock (migrate.ts), after the usage table's DDL (same schema). */
export const TURN_DDL = [
  `CREATE TABLE IF NOT EXISTS ${USAGE_SCHEMA}.attempt_turns (
     id bigserial PRIMARY KEY,
     workflow_id text NOT NULL,
     execution text NOT NULL,
     turn integer NOT NULL,
     input_tokens bigint NOT NULL,
     output_tokens bigint NOT NULL,
     cost_usd double precision NOT NULL,
     submitted boolean NOT NULL,
     UNIQUE (workflow_id, execution, turn))`,
  `CREATE INDEX IF NOT EXISTS attempt_turns_by_workflow ON ${USAGE_SCHEMA}.attempt_turns (workflow_id, id)`,
];

export interface TurnRow {
  readonly id: number;
  readonly execution: string;
  readonly stats: AttemptStats;
  readonly submitted: boolean;
}

/** At most this many rows per read: a hostile or runaway writer cannot make one read unbounded. */
export const TURN_PAGE = 500;

function count(value: unknown): number {
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) && parsed >= 0 ? parsed : 0;
}

export class TurnLog {
  readonly #pool: pg.Pool;

  constructor(database: string) {
    this.#pool = new pg.Pool({ connectionString: database, max: 2, application_name: 'wfcli remote turns' });
    // An idle client's error (the server restarted) must not end the process; the next query reconnects.
    this.#pool.on('error', () => undefined);
  }

  /** Appends a finished turn; the same turn written twice (a retried write) stays one row. */
  async record(workflowId: string, execution: string, stats: AttemptStats, submitted: boolean): Promise<void> {
    await this.#pool.query(
      `INSERT INTO ${USAGE_SCHEMA}.attempt_turns (workflow_id, execution, turn, input_tokens, output_tokens, cost_usd, submitted) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (workflow_id, execution, turn) DO NOTHING`,
      [workflowId, execution, stats.turns, stats.inputTokens, stats.outputTokens, stats.costUsd, submitted],
    );
  }

  /** The attempt's turns after row `after`, oldest first; values a writer got wrong read as zero, never as negative usage. */
  async after(workflowId: string, after: number): Promise<TurnRow[]> {
    const { rows } = await this.#pool.query<{ id: string; execution: string; turn: number; input_tokens: string; output_tokens: string; cost_usd: number; submitted: boolean }>(
      `SELECT id, execution, turn, input_tokens, output_tokens, cost_usd, submitted FROM ${USAGE_SCHEMA}.attempt_turns WHERE workflow_id = $1 AND id > $2 ORDER BY id LIMIT ${TURN_PAGE}`,
      [workflowId, after],
    );
    return rows.map((row) => ({
      id: count(row.id),
      execution: String(row.execution),
      submitted: row.submitted === true,
      stats: { inputTokens: count(row.input_tokens), outputTokens: count(row.output_tokens), costUsd: Number.isFinite(row.cost_usd) && row.cost_usd >= 0 ? row.cost_usd : 0, turns: count(row.turn) },
    }));
  }

  async close(): Promise<void> {
    await this.#pool.end().catch(() => undefined);
  }
}
