/**
 * The AuthorityClient test fixture: a scripted bridge socket, a fake clock,
 * and a client wired to both (stopped after every test of the file that
 * imports it).
 */
import { afterEach } from 'vitest';
import { AuthorityClient, type AuthorityClientOptions, type AuthorityNotification } from '../../../relay/clients/authority-client.js';
import { encodeBase64url } from '../../../relay/clients/base64url.js';
import type { AuthorityKey } from '../../../relay/clients/keys.js';
import type { Timers } from '../../../relay/clients/socket.js';
import { FakeSocket, flush, until } from './fake-socket.js';

export { FakeSocket, SID, flush, until } from './fake-socket.js';

/** A fake clock: timers fire only when the test advances time. */
export class FakeTimers implements Timers {
  time = 1_000_000;
  #next = 1;
  readonly #pending = new Map<number, { at: number; callback: () => void }>();
  now(): number {
    return this.time;
  }
  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#pending.set(id, { at: this.time + ms, callback });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#pending.delete(handle as number);
  }
  /** Delays of the pending timers, from now. */
  get pending(): number[] {
    return [...this.#pending.values()].map((timer) => timer.at - this.time).sort((a, b) => a - b);
  }
  advance(ms: number): void {
    const until = this.time + ms;
    for (;;) {
      const due = [...this.#pending.entries()].filter(([, timer]) => timer.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.#pending.delete(due[0]);
      this.time = due[1].at;
      due[1].callback();
    }
    this.time = until;
  }
}

export const NONCE = encodeBase64url(new Uint8Array(32).fill(7));
let clients: AuthorityClient[] = [];
afterEach(() => {
  for (const client of clients) client.stop();
  clients = [];
});

export function setup(key: AuthorityKey, options: Partial<AuthorityClientOptions> = {}) {
  const timers = new FakeTimers();
  const sockets: FakeSocket[] = [];
  const notifications: AuthorityNotification[] = [];
  const statuses: string[] = [];
  let cleared = 0;
  const client = new AuthorityClient({
    url: 'https://bridge.example/base/',
    key,
    timers,
    random: () => 0.5,
    pingIntervalMs: 0,
    webSocket: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    onNotification: (notification) => notifications.push(notification),
    onNotificationCleared: () => cleared++,
    onStatusChange: (status) => statuses.push(status),
    ...options,
  });
  clients.push(client);
  return {
    client,
    timers,
    sockets,
    notifications,
    statuses,
    cleared: () => cleared,
    last: () => sockets[sockets.length - 1]!,
  };
}

export async function authenticate(socket: FakeSocket): Promise<void> {
  socket.push({ type: 'challenge', proto: 1, nonce: NONCE });
  await until(() => socket.sent.some((message) => message.type === 'auth'));
  socket.push({ type: 'ready', sessions: [] });
  await flush();
}
