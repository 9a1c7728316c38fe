/**
 * DBOS's system tables, created or migrated once: two processes migrating a
 * fresh database at the same moment fail with `tuple concurrently updated`,
 * so hosts and workers take one advisory lock around DBOS's own migration.
 */
import pg from 'pg';

const MIGRATION_LOCK = 'SELECT pg_advisory_lock(hashtextextended($1, 0))';
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
    await client.query(MIGRATION_LOCK, [KEY]);
    await DBOS.migrate(database);
  } finally {
    await client.query(MIGRATION_UNLOCK, [KEY]).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}
