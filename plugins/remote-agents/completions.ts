/**
 * Waking a host the moment its attempt ends, instead of polling DBOS every
 * 25 ms. A trigger on DBOS's `workflow_status` (created under the migration
 * lock, migrate.ts) sends `NOTIFY wfcli_remote_done, '<workflow ID>'` when an
 * attempt's workflow reaches a final status. Postgres delivers a notification
 * only when its transaction commits, so the outcome it announces is durable
 * and readable. Each host listens on one connection of its own per database.
 *
 * A notification is a wake-up, never the result: the waiter then reads the
 * status itself, and it also reads it every `fallbackMs` in case a
 * notification was lost (a dropped connection, a pooler that breaks LISTEN).
 * The trigger notifies only for the attempt workflow and short IDs: a
 * failing `pg_notify` would abort DBOS's own transaction.
 */
import pg from 'pg';
import { ATTEMPT_WORKFLOW } from './attempt.js';
import { USAGE_SCHEMA } from './usage-store.js';

export const DONE_CHANNEL = 'wfcli_remote_done';
const TRIGGER = 'wfcli_remote_attempt_done';
const FINAL = ['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED'];
const quoted = (values: readonly string[]): string => values.map((value) => `'${value.replace(/'/g, "''")}'`).join(', ');

/** Run inside the migration lock, after DBOS's migrations (its table must exist). */
export const COMPLETION_DDL = [
  `CREATE OR REPLACE FUNCTION ${USAGE_SCHEMA}.notify_attempt_done() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM pg_notify('${DONE_CHANNEL}', NEW.workflow_uuid);
     RETURN NULL;
   END $$`,
  // Created once: CREATE TRIGGER locks the table, which every dispatch uses.
  `DO $$ BEGIN
     IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = '${TRIGGER}' AND tgrelid = 'dbos.workflow_status'::regclass) THEN
       CREATE TRIGGER ${TRIGGER} AFTER UPDATE OF status ON dbos.workflow_status FOR EACH ROW
         WHEN (NEW.status IN (${quoted(FINAL)}) AND OLD.status IS DISTINCT FROM NEW.status
               AND NEW.name = ${quoted([ATTEMPT_WORKFLOW])} AND octet_length(NEW.workflow_uuid) < 1024)
         EXECUTE FUNCTION ${USAGE_SCHEMA}.notify_attempt_done();
     END IF;
   END $$`,
];

type Wake = () => void;

export class CompletionListener {
  readonly #database: string;
  readonly #waiters = new Map<string, Set<Wake>>();
  #client: Promise<pg.Client> | undefined;
  #closed = false;

  constructor(database: string) {
    this.#database = database;
  }

  /**
   * Settles once the workflow has a final status. Rejects with the driver's
   * error when the database cannot be read (the caller waits that out), and
   * at once when `signal` is aborted.
   */
  async finished(workflowId: string, signal: AbortSignal, fallbackMs: number): Promise<void> {
    for (;;) {
      // Armed before the read: a notification between the read and the wait still wakes it.
      let wake: Wake = () => undefined;
      const woken = new Promise<void>((resolve) => (wake = resolve));
      this.#arm(workflowId, wake);
      try {
        const opened = this.#connect();
        const client = await opened;
        const { rows } = await client.query<{ status: string }>('SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1', [workflowId]).catch((error: unknown) => {
          // A connection cut before its 'end' event arrived: the caller's retry opens a new one.
          if (this.#client === opened) this.#client = undefined;
          throw error;
        });
        if (rows[0] !== undefined && FINAL.includes(rows[0].status)) return;
        await new Promise<void>((resolve, reject) => {
          const finish = (error?: Error): void => {
            clearTimeout(timer);
            signal.removeEventListener('abort', onAbort);
            if (error === undefined) resolve();
            else reject(error);
          };
          const onAbort = (): void => finish(new Error('the wait for the attempt was aborted'));
          const timer = setTimeout(() => finish(), fallbackMs);
          signal.addEventListener('abort', onAbort, { once: true });
          void woken.then(() => finish());
          if (signal.aborted) onAbort();
        });
      } finally {
        this.#disarm(workflowId, wake);
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    await client?.then((open) => open.end()).catch(() => undefined);
  }

  #arm(workflowId: string, wake: Wake): void {
    let set = this.#waiters.get(workflowId);
    if (set === undefined) this.#waiters.set(workflowId, (set = new Set()));
    set.add(wake);
  }

  #disarm(workflowId: string, wake: Wake): void {
    const set = this.#waiters.get(workflowId);
    set?.delete(wake);
    if (set?.size === 0) this.#waiters.delete(workflowId);
  }

  /** The listening connection, opened on first use and again after it broke. */
  #connect(): Promise<pg.Client> {
    if (this.#closed) return Promise.reject(new Error('the remote agents database connection is closed'));
    if (this.#client !== undefined) return this.#client;
    const client = new pg.Client({ connectionString: this.#database, application_name: 'wfcli remote completions' });
    const broken = (): void => {
      if (this.#client === opened) this.#client = undefined;
      // Every waiter reads again now, on a new connection: none may sleep through a missed notification.
      for (const set of this.#waiters.values()) for (const wake of set) wake();
      void client.end().catch(() => undefined);
    };
    client.on('error', broken);
    client.on('end', broken);
    client.on('notification', (message) => {
      if (message.channel !== DONE_CHANNEL || message.payload === undefined) return;
      for (const wake of this.#waiters.get(message.payload) ?? []) wake();
    });
    const opened = (async () => {
      await client.connect();
      await client.query(`LISTEN ${DONE_CHANNEL}`);
      return client;
    })();
    this.#client = opened;
    opened.catch(() => {
      if (this.#client === opened) this.#client = undefined;
    });
    return opened;
  }
}
