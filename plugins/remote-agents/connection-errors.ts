/** Telling a database that is down or restarting (worth waiting for) from any answer it gave. */
import { messageOf } from '../../kernel/index.js';

/** Postgres unreachable or restarting: worth waiting for, unlike any answer from DBOS. */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (/^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN)$/.test(code) || /^(57P0[1-3]|08\d{3})$/.test(code))) return true;
  return /Connection terminated|connection error|terminating connection|the database system is (starting up|shutting down)|Client has encountered a connection error/i.test(messageOf(error));
}

/** Waits `ms`, or less once `signal` is aborted. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
