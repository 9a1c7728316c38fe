/**
 * The host's connection to the DBOS system database: one `DBOSClient` per
 * database URL and process, created on the first remote attempt (the DBOS
 * SDK and `pg` load only then) and destroyed when the engine closes.
 */
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import { WorkflowError, messageOf } from '../../kernel/index.js';
import { CallLog, CALL_CHANNEL } from './call-log.js';
import { CompletionListener, DONE_CHANNEL } from './completions.js';
import { migrateOnce } from './migrate.js';
import { Notifications } from './notifications.js';
import { TurnLog } from './turn-log.js';
import { UsageStore } from './usage-store.js';

const clients = new Map<string, Promise<DBOSClient>>();
const usageStores = new Map<string, UsageStore>();
const listeners = new Map<string, CompletionListener>();
const turnLogs = new Map<string, TurnLog>();
const callLogs = new Map<string, CallLog>();
const listening = new Map<string, Notifications>();

/** One value per database URL and process, made on first use. */
function perDatabase<T>(cache: Map<string, T>, database: string, make: (database: string) => T): T {
  const found = cache.get(database);
  if (found !== undefined) return found;
  const made = make(database);
  cache.set(database, made);
  return made;
}

/** The host's one listening connection to a database: attempts' ends and their host tool calls (notifications.ts). */
export function notifications(database: string): Notifications {
  return perDatabase(listening, database, (url) => new Notifications(url, [DONE_CHANNEL, CALL_CHANNEL], 'wfcli remote completions'));
}

/** The host's listener for finished attempts on a database (completions.ts). */
export function completionListener(database: string): CompletionListener {
  return perDatabase(listeners, database, (url) => new CompletionListener(notifications(url)));
}

/** The host tool calls' table for a database (call-log.ts). */
export function callLog(database: string): CallLog {
  return perDatabase(callLogs, database, (url) => new CallLog(url));
}

/** The usage table's reader for a database. */
export function usageStore(database: string): UsageStore {
  return perDatabase(usageStores, database, (url) => new UsageStore(url));
}

/** The turn table's reader for a database. */
export function turnLog(database: string): TurnLog {
  return perDatabase(turnLogs, database, (url) => new TurnLog(url));
}

export function dbosClient(database: string): Promise<DBOSClient> {
  let client = clients.get(database);
  if (client === undefined) {
    client = (async () => {
      const { DBOSClient: Client } = await import('@dbos-inc/dbos-sdk');
      try {
        // The first host or worker on a fresh database creates DBOS's tables.
        await migrateOnce(database);
        return await Client.create({ systemDatabaseUrl: database, systemDatabasePoolSize: 4 });
      } catch (error) {
        throw new WorkflowError('AGENT_FAILED', `cannot reach the remote agents database (${redact(database)}): ${messageOf(error)}; check extensionSettings["remote-agents"].database in the global settings file`);
      }
    })();
    clients.set(database, client);
    // A failed connection is not cached: the next attempt tries again.
    client.catch(() => clients.delete(database));
  }
  return client;
}

export async function closeDbosClients(): Promise<void> {
  const open = [...clients.values()];
  const stores = [...usageStores.values(), ...listening.values(), ...turnLogs.values(), ...callLogs.values()];
  clients.clear();
  usageStores.clear();
  listeners.clear();
  listening.clear();
  turnLogs.clear();
  callLogs.clear();
  await Promise.allSettled([...open.map(async (client) => (await client).destroy()), ...stores.map((store) => store.close())]);
}

/** The URL without its password, for messages. */
export function redact(database: string): string {
  try {
    const url = new URL(database);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return 'an unparsable URL';
  }
}
