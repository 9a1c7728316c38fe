/**
 * Waking a host the moment its attempt ends, instead of polling DBOS every
 * 25 ms. A trigger on DBOS's `workflow_status` (created under the migration
 * lock, migrate.ts) sends `NOTIFY wfcli_remote_done, '<workflow ID>'` when an
 * attempt's workflow reaches a final status. Postgres delivers a notification
 * only when its transaction commits, so the outcome it announces is durable
 * and readable. Each host listens on one connection per database
 * (notifications.ts), shared with its wait for host tool calls.
 *
 * A notification is a wake-up, never the result: the waiter then reads the
 * status itself, and it also reads it every `fallbackMs` in case a
 * notification was lost (a dropped connection, a pooler that breaks LISTEN).
 * The trigger notifies only for the attempt workflow and short IDs: a
 * failing `pg_notify` would abort DBOS's own transaction.
 */
import { ATTEMPT_WORKFLOW } from './attempt.js';
import type { Notifications } from './notifications.js';
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

export class CompletionListener {
  readonly #notifications: Notifications;

  /** Listens through `notifications`, which must listen on DONE_CHANNEL (dbos-client.ts shares one per database). */
  constructor(notifications: Notifications) {
    this.#notifications = notifications;
  }

  /**
   * Settles once the workflow has a final status. Rejects with the driver's
   * error when the database cannot be read (the caller waits that out), and
   * at once when `signal` is aborted.
   */
  async finished(workflowId: string, signal: AbortSignal, fallbackMs: number): Promise<void> {
    for (;;) {
      const armed = this.#notifications.arm(DONE_CHANNEL, workflowId);
      try {
        const { rows } = await this.#notifications.query<{ status: string }>('SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1', [workflowId]);
        if (rows[0] !== undefined && FINAL.includes(rows[0].status)) return;
        await armed.wait(signal, fallbackMs);
      } finally {
        armed.disarm();
      }
    }
  }
}
