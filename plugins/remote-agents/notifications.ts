/**
 * One listening Postgres connection per database and process, shared by the
 * waits that a `NOTIFY` can end: a host's wait for an attempt's end
 * (completions.ts) and for its host tool calls (host-calls.ts), a worker's
 * wait for the answer to a call (worker-tools.ts). A notification is only a
 * wake-up: the waiter then reads the row itself, and reads again after
 * `fallbackMs` in case a notification was lost (a pooler in transaction
 * mode breaks `LISTEN`). A broken connection wakes every waiter, so none
 * sleeps through a notification sent while it was down.
 */
import pg from 'pg';

type Wake = () => void;

export interface Armed {
  /** Settles on a notification for the key, after `fallbackMs`, or rejects once `signal` is aborted. */
  wait(signal: AbortSignal, fallbackMs: number): Promise<void>;
  disarm(): void;
}

export class Notifications {
  readonly #database: string;
  readonly #channels: readonly string[];
  readonly #application: string;
  readonly #waiters = new Map<string, Set<Wake>>();
  #client: Promise<pg.Client> | undefined;
  #closed = false;

  /** `channels` are plain identifiers of ours; `application` names the connection in `pg_stat_activity`. */
  constructor(database: string, channels: readonly string[], application: string) {
    this.#database = database;
    this.#channels = channels;
    this.#application = application;
  }

  /**
   * Registers a waiter for `key` on `channel` before the caller reads its
   * row: a notification between the read and the wait still wakes it.
   */
  arm(channel: string, key: string): Armed {
    const name = `${channel}\u0000${key}`;
    let woken = false;
    let wakeUp: Wake = () => void (woken = true);
    const wake: Wake = () => wakeUp();
    let set = this.#waiters.get(name);
    if (set === undefined) this.#waiters.set(name, (set = new Set()));
    set.add(wake);
    return {
      wait: (signal, fallbackMs) =>
        new Promise<void>((resolve, reject) => {
          const finish = (error?: Error): void => {
            clearTimeout(timer);
            signal.removeEventListener('abort', onAbort);
            wakeUp = () => undefined;
            if (error === undefined) resolve();
            else reject(error);
          };
          const onAbort = (): void => finish(new Error('the wait was aborted'));
          const timer = setTimeout(() => finish(), fallbackMs);
          signal.addEventListener('abort', onAbort, { once: true });
          wakeUp = () => finish();
          if (signal.aborted) onAbort();
          else if (woken) finish();
        }),
      disarm: () => {
        set.delete(wake);
        if (set.size === 0 && this.#waiters.get(name) === set) this.#waiters.delete(name);
      },
    };
  }

  /** Runs a query on the listening connection (opened, or opened again, first); a cut connection is dropped for the next call. */
  async query<T extends pg.QueryResultRow>(text: string, values: readonly unknown[]): Promise<pg.QueryResult<T>> {
    const opened = this.#connect();
    const client = await opened;
    return client.query<T>(text, [...values]).catch((error: unknown) => {
      // A connection cut before its 'end' event arrived: the caller's retry opens a new one.
      if (this.#client === opened) this.#client = undefined;
      throw error;
    });
  }

  /** Opens the connection now, so that notifications sent from here on are received. */
  async listen(): Promise<void> {
    await this.#connect();
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    await client?.then((open) => open.end()).catch(() => undefined);
  }

  #wakeAll(): void {
    for (const set of this.#waiters.values()) for (const wake of set) wake();
  }

  #connect(): Promise<pg.Client> {
    if (this.#closed) return Promise.reject(new Error('the remote agents database connection is closed'));
    if (this.#client !== undefined) return this.#client;
    const client = new pg.Client({ connectionString: this.#database, application_name: this.#application });
    const broken = (): void => {
      if (this.#client === opened) this.#client = undefined;
      this.#wakeAll();
      void client.end().catch(() => undefined);
    };
    client.on('error', broken);
    client.on('end', broken);
    client.on('notification', (message) => {
      if (message.payload === undefined) return;
      for (const wake of [...(this.#waiters.get(`${message.channel}\u0000${message.payload}`) ?? [])]) wake();
    });
    const opened = (async () => {
      await client.connect();
      for (const channel of this.#channels) await client.query(`LISTEN ${channel}`);
      return client;
    })();
    this.#client = opened;
    opened.catch(() => {
      if (this.#client === opened) this.#client = undefined;
    });
    return opened;
  }
}
