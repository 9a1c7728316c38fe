/**
 * Each execution's usage, kept where a crash cannot take it back: a worker
 * writes every finished turn's cumulative usage to a table of our own in the
 * DBOS database, keyed by the attempt's workflow ID and the execution's Pi
 * session ID. DBOS re-runs an unfinished attempt from its start after a
 * recovery and keeps nothing that execution returned, so the host sums this table:
 * the turns a dead worker finished are charged with the attempt, as a local
 * attempt's would be.
 */
import pg from 'pg';
import type { AttemptStats } from './attempt.js';

export const USAGE_SCHEMA = 'wfcli_remote';

/** Run inside the migration lock (migrate.ts). */
export const USAGE_DDL = [
  `CREATE SCHEMA IF NOT EXISTS ${USAGE_SCHEMA}`,
  `CREATE TABLE IF NOT EXISTS ${USAGE_SCHEMA}.attempt_usage (
     workflow_id text NOT NULL,
     execution text NOT NULL,
     input_tokens bigint NOT NULL,
     output_tokens bigint NOT NULL,
     cost_usd double precision NOT NULL,
     turns integer NOT NULL,
     PRIMARY KEY (workflow_id, execution))`,
];

export class UsageStore {
  readonly #pool: pg.Pool;

  constructor(database: string) {
    this.#pool = new pg.Pool({ connectionString: database, max: 2, application_name: 'wfcli remote usage' });
    // An idle client's error (the server restarted) must not end the process; the next query reconnects.
    this.#pool.on('error', () => undefined);
  }

  async record(workflowId: string, execution: string, stats: AttemptStats): Promise<void> {
    await this.#pool.query(
      `INSERT INTO ${USAGE_SCHEMA}.attempt_usage (workflow_id, execution, input_tokens, output_tokens, cost_usd, turns) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (workflow_id, execution) DO UPDATE SET input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens, cost_usd = EXCLUDED.cost_usd, turns = EXCLUDED.turns`,
      [workflowId, execution, stats.inputTokens, stats.outputTokens, stats.costUsd, stats.turns],
    );
  }

  /** The usage of every execution of an attempt but `except` (the one whose outcome the host holds). */
  async others(workflowId: string, except: string): Promise<AttemptStats> {
    const { rows } = await this.#pool.query<{ input: string | null; output: string | null; cost: number | null; turns: string | null }>(
      `SELECT sum(input_tokens) AS input, sum(output_tokens) AS output, sum(cost_usd) AS cost, sum(turns) AS turns FROM ${USAGE_SCHEMA}.attempt_usage WHERE workflow_id = $1 AND execution <> $2`,
      [workflowId, except],
    );
    const row = rows[0];
    const count = (value: string | null | undefined): number => {
      const parsed = Number(value ?? 0);
      return Number.isSafeInteger(parsed) && parsed >= 0 ? parsed : 0;
    };
    const cost = row?.cost ?? 0;
    return { inputTokens: count(row?.input), outputTokens: count(row?.output), costUsd: Number.isFinite(cost) && cost >= 0 ? cost : 0, turns: count(row?.turns) };
  }

  async close(): Promise<void> {
    await this.#pool.end().catch(() => undefined);
  }
}
