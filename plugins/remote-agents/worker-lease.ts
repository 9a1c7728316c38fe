/**
 * Noticing a dead worker. DBOS recovers a crashed executor's workflows only
 * when an executor with the same ID starts again; our workers take a fresh
 * executor ID at each start, so a live worker must recover a dead one's work.
 * Each worker holds a session advisory lock named by its executor ID on a
 * connection of its own for as long as it lives: Postgres releases it when
 * the process dies (kill -9 included) or its connection drops. Every
 * `intervalMs` a worker looks for executors with PENDING attempts on its
 * queue; one whose lock it can take is dead, and its attempts go back to
 * the queue (what DBOS's own recovery does, for that executor), so any live
 * worker runs them again.
 *
 * A worker that loses its own lock (its connection dropped, Postgres
 * restarted) may have had its work recovered elsewhere already: it must stop
 * at once, without recording anything (`onLost`), or an attempt could run
 * twice to completion.
 */
import pg from 'pg';
import { APPLICATION_VERSION } from './attempt.js';

export interface LeaseOptions {
  readonly database: string;
  readonly executor: string;
  readonly queue: string;
  readonly intervalMs: number;
  /** Called once when this worker's own lock is gone; it must end the worker's attempts without recording them. */
  readonly onLost: (reason: string) => void;
  readonly log: (line: string) => void;
  /** DBOS's system schema. */
  readonly schema?: string;
}

export interface Lease {
  /** Starts looking for dead workers (once DBOS has created its tables). */
  recover(): void;
  close(): Promise<void>;
}

const LOCK = 'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked';
const UNLOCK = 'SELECT pg_advisory_unlock(hashtextextended($1, 0))';

export async function holdLease(options: LeaseOptions): Promise<Lease> {
  const schema = (options.schema ?? 'dbos').replace(/"/g, '');
  const own = new pg.Client({ connectionString: options.database, application_name: `wfcli-worker ${options.executor}` });
  const probe = new pg.Client({ connectionString: options.database, application_name: `wfcli-worker-probe ${options.executor}` });
  let closing = false;
  let lost = false;
  const lose = (reason: string): void => {
    if (closing || lost) return;
    lost = true;
    options.onLost(reason);
  };
  own.on('error', (error) => lose(`its lease connection failed: ${error.message}`));
  own.on('end', () => lose('its lease connection ended'));
  probe.on('error', () => undefined);
  await own.connect();
  const taken = await own.query<{ locked: boolean }>(LOCK, [options.executor]);
  if (taken.rows[0]?.locked !== true) throw new Error(`the executor ID ${options.executor} is held by another worker`);
  await probe.connect();

  const sweep = async (): Promise<void> => {
    const pending = await probe.query<{ executor_id: string }>(
      `SELECT DISTINCT executor_id FROM "${schema}".workflow_status WHERE status = 'PENDING' AND queue_name = $1 AND application_version = $2 AND executor_id <> $3`,
      [options.queue, APPLICATION_VERSION, options.executor],
    );
    for (const { executor_id: executor } of pending.rows) {
      const probeLock = await probe.query<{ locked: boolean }>(LOCK, [executor]);
      if (probeLock.rows[0]?.locked !== true) continue;
      try {
        const moved = await probe.query(
          `UPDATE "${schema}".workflow_status
              SET status = 'ENQUEUED', started_at_epoch_ms = NULL, owner_xid = NULL, updated_at = (EXTRACT(EPOCH FROM now()) * 1000)::bigint
            WHERE status = 'PENDING' AND executor_id = $1 AND application_version = $2 AND queue_name = $3`,
          [executor, APPLICATION_VERSION, options.queue],
        );
        if ((moved.rowCount ?? 0) > 0) options.log(`recovered ${moved.rowCount} attempt(s) of the dead worker ${executor}`);
      } finally {
        await probe.query(UNLOCK, [executor]);
      }
    }
  };

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = (): void => {
    timer = setTimeout(() => {
      running = sweep()
        .catch((error: unknown) => options.log(`recovery sweep failed: ${(error as Error).message}`))
        .finally(() => {
          if (!closing) schedule();
        });
    }, options.intervalMs);
  };
  return {
    recover() {
      // The first sweep runs at once: a worker started to replace a dead one recovers its work without waiting.
      running = sweep()
        .catch((error: unknown) => options.log(`recovery sweep failed: ${(error as Error).message}`))
        .finally(schedule);
    },
    async close() {
      closing = true;
      if (timer !== undefined) clearTimeout(timer);
      await running.catch(() => undefined);
      await probe.end().catch(() => undefined);
      await own.end().catch(() => undefined);
    },
  };
}
