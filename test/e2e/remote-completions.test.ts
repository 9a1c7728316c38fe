/**
 * The host's wake-up when a remote attempt ends (plugins/remote-agents/
 * completions.ts) on a real Postgres with DBOS's tables: the trigger created
 * by the migration notifies when an attempt's workflow reaches a final
 * status, and the listener survives its connection being cut. The fallback
 * read is set to ten minutes, so only the notification can end a wait
 * within the test's time.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLICATION_NAME, APPLICATION_VERSION, ATTEMPT_WORKFLOW } from '../../plugins/remote-agents/attempt.js';
import { CompletionListener, DONE_CHANNEL } from '../../plugins/remote-agents/completions.js';
import { migrateOnce } from '../../plugins/remote-agents/migrate.js';
import { Notifications } from '../../plugins/remote-agents/notifications.js';
import { isConnectionError } from '../../plugins/remote-agents/session.js';
import { startPostgres, type PostgresCluster } from './support/postgres.js';

const NEVER_MS = 600_000;
let cluster: PostgresCluster;
let database: string;

beforeAll(async () => {
  cluster = await startPostgres();
  cluster.createDatabase('completions');
  database = cluster.url('completions');
  await migrateOnce(database);
});

afterAll(() => cluster?.destroy());

describe('remote attempt completions', () => {
  it('wakes the wait when the workflow ends, at once when it already ended, and after its connection was cut', async () => {
    const { DBOSClient } = await import('@dbos-inc/dbos-sdk');
    const client = await DBOSClient.create({ systemDatabaseUrl: database, applicationName: APPLICATION_NAME });
    const connection = new Notifications(database, [DONE_CHANNEL], 'wfcli remote completions');
    const listener = new CompletionListener(connection);
    const admin = new pg.Client({ connectionString: database });
    await admin.connect();
    const enqueue = (workflowID: string) => client.enqueue({ queueName: 'completions', workflowName: ATTEMPT_WORKFLOW, workflowID, appVersion: APPLICATION_VERSION }, {});
    const signal = new AbortController().signal;
    try {
      await enqueue('run/a/1');
      let ended = false;
      const waiting = listener.finished('run/a/1', signal, NEVER_MS).then(() => (ended = true));
      // The listener is connected and the status read (not final) once its backend shows up listening.
      await waitFor(admin, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'wfcli remote completions' AND state = 'idle'");
      expect(ended).toBe(false);
      await client.cancelWorkflow('run/a/1');
      await waiting;

      // Already final: no notification needed.
      await listener.finished('run/a/1', signal, NEVER_MS);

      // The listening connection cut: the next wait reconnects, listens again and is woken.
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'wfcli remote completions'");
      await enqueue('run/b/1');
      const second = retried(() => listener.finished('run/b/1', signal, NEVER_MS));
      await waitFor(admin, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'wfcli remote completions' AND state = 'idle'");
      await client.cancelWorkflow('run/b/1');
      await second;

      // An aborted wait ends at once.
      await enqueue('run/c/1');
      const stop = new AbortController();
      const aborted = listener.finished('run/c/1', stop.signal, NEVER_MS).then(() => 'ended', () => 'aborted');
      stop.abort();
      expect(await aborted).toBe('aborted');
    } finally {
      await connection.close();
      await client.destroy();
      await admin.end();
    }
  });
});

/** What the host does (session.ts): a wait that met a cut connection is asked again. */
async function retried(wait: () => Promise<void>): Promise<void> {
  for (;;) {
    try {
      return await wait();
    } catch (error) {
      if (!isConnectionError(error)) throw error;
    }
  }
}

/** Until the query's `n` is at least 1: a LISTEN backend becomes visible when its connection is up (an event in the database, read each time it is asked). */
async function waitFor(admin: pg.Client, query: string): Promise<void> {
  for (;;) {
    const { rows } = await admin.query<{ n: number }>(query);
    if ((rows[0]?.n ?? 0) >= 1) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
