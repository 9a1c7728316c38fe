/**
 * DBOS's system tables, our usage, turn and call tables and the completion trigger (completions.ts), created or migrated once: two
 * processes migrating a fresh database at the same moment fail with `tuple
 * concurrently updated`, so hosts and workers take one advisory lock around
 * the migration. The lock is tried, not waited for inside a statement: a
 * session blocked in `pg_advisory_lock` holds a snapshot, and DBOS's
 * `CREATE INDEX CONCURRENTLY` waits for every such snapshot to end.
 */
import pg from 'pg';
import { CALL_DDL } from './call-log.js';
import { COMPLETION_DDL } from './completions.js';
import { TURN_DDL } from './turn-log.js';
import { USAGE_DDL } from './usage-store.js';

const MIGRATION_LOCK = 'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked';
const MIGRATION_UNLOCK = 'SELECT pg_advisory_unlock(hashtextextended($1, 0))';
const KEY = 'pi-extensible-workflows.dbos-migration';

export async function migrateOnce(database: string, created = false): Promise<void> {
  const { DBOS } = await import('@dbos-inc/dbos-sdk');
  const client = new pg.Client({ connectionString: database, application_name: 'wfcli dbos migration' });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    // No database yet (3D000): DBOS creates it, and the locked migration below runs on it.
    if ((error as { code?: unknown }).code !== '3D000' || created) throw error;
    await DBOS.migrate(database).catch(() => undefined);
    return migrateOnce(database, true);
  }
  try {
    for (let wait = 10; ; wait = Math.min(wait * 2, 250)) {
      const taken = await client.query<{ locked: boolean }>(MIGRATION_LOCK, [KEY]);
      if (taken.rows[0]?.locked === true) break;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    await DBOS.migrate(database);
    for (const statement of [...USAGE_DDL, ...TURN_DDL, ...CALL_DDL, ...COMPLETION_DDL]) await client.query(statement);
  } finally {
    await client.query(MIGRATION_UNLOCK, [KEY]).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}
