/** Shared helpers of the relay bridge behaviour suite: bridge handles, clients, keys. */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { authText, b64u, httpJson, newAuthorityKey, randomBytes, TestSocket, wsUrl, type AuthorityKey, type Closed } from './client.js';

export interface BridgeHandle {
  /** Base URL, `http://host:port`. */
  readonly url: string;
  close(): Promise<void>;
  /** Rooms held in memory (for the "rooms are freed" tests). */
  roomCount?(): number | Promise<number>;
}

export type StartBridge = (env: Record<string, string>) => Promise<BridgeHandle>;

export const SESSION_ID = /^[A-Za-z0-9_-]{22}$/;
export const NONCE = /^[A-Za-z0-9_-]{43}$/;

/** Some valid ciphertext (`data`) of `bytes` bytes. */
export function data(bytes = 16): string {
  return b64u(randomBytes(bytes));
}

export async function eventually(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Authority IDs that must be refused everywhere, with why. */
export function invalidAuthorityIds(valid: string): [string, string][] {
  const last = valid.charCodeAt(valid.length - 1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const index = alphabet.indexOf(String.fromCharCode(last));
  return [
    ['a 31-byte key', b64u(randomBytes(31))],
    ['a 33-byte key', b64u(randomBytes(33))],
    ['a padded key', `${valid}=`],
    ['a non-canonical last character', `${valid.slice(0, -1)}${alphabet[(index & ~3) | 1]!}`],
    ['standard base64 characters', `+${valid.slice(1, -1)}/`],
    ['an empty ID', ''],
    ['a very long ID', 'A'.repeat(2000)],
  ];
}

/** What every topic of the suite registers its tests with. */
export interface BehaviourContext {
  readonly startBridge: StartBridge;
  /** Sockets opened through `connect`, closed after each test. */
  readonly sockets: TestSocket[];
  useBridge(env?: Record<string, string>): () => BridgeHandle;
  connect(bridge: BridgeHandle, path: string, headers?: Record<string, string>): TestSocket;
  authority(bridge: BridgeHandle, key?: AuthorityKey, headers?: Record<string, string>): Promise<{ socket: TestSocket; key: AuthorityKey }>;
  consumer(bridge: BridgeHandle, auth: { socket: TestSocket; key: AuthorityKey }, headers?: Record<string, string>): Promise<{ socket: TestSocket; session: string }>;
  assertAlive(bridge: BridgeHandle, options?: { signaling?: boolean }): Promise<void>;
  expectClose(socket: TestSocket, code: number): Promise<Closed>;
  upgradeStatus(socket: TestSocket): Promise<number | undefined>;
}

/** The shared context; call inside the suite's `describe` (it registers hooks there). */
export function createBehaviourContext(startBridge: StartBridge): BehaviourContext {
  const sockets: TestSocket[] = [];
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });

  /** One bridge for a describe block. */
  function useBridge(env: Record<string, string> = {}): () => BridgeHandle {
    let handle: BridgeHandle | undefined;
    beforeAll(async () => {
      handle = await startBridge(env);
    });
    afterAll(async () => {
      await handle?.close();
    });
    return () => {
      if (handle === undefined) throw new Error('bridge not started');
      return handle;
    };
  }

  function connect(bridge: BridgeHandle, path: string, headers: Record<string, string> = {}): TestSocket {
    const socket = new TestSocket(wsUrl(bridge.url, path), headers);
    sockets.push(socket);
    return socket;
  }

  /** An Authority socket through the whole handshake (challenge, auth, ready). */
  async function authority(bridge: BridgeHandle, key?: AuthorityKey, headers: Record<string, string> = {}): Promise<{ socket: TestSocket; key: AuthorityKey }> {
    const k = key ?? (await newAuthorityKey());
    const socket = connect(bridge, `/authority/${k.id}`, headers);
    const challenge = await socket.expect('challenge');
    socket.send({ type: 'auth', proto: 1, signature: await k.sign(authText(k.id, challenge['nonce'] as string)) });
    expect(await socket.next()).toEqual({ type: 'ready', sessions: [] });
    return { socket, key: k };
  }

  /** A Consumer joined to an online Authority; the Authority has read its session_open. */
  async function consumer(bridge: BridgeHandle, auth: { socket: TestSocket; key: AuthorityKey }, headers: Record<string, string> = {}): Promise<{ socket: TestSocket; session: string }> {
    const socket = connect(bridge, `/consumer/${auth.key.id}`, headers);
    const welcome = await socket.expect('welcome');
    expect(welcome).toEqual({ type: 'welcome', session: expect.stringMatching(SESSION_ID), proto: 1 });
    const session = welcome['session'] as string;
    expect(await auth.socket.next()).toEqual({ type: 'session_open', session });
    return { socket, session };
  }

  /** A fresh, well-behaved Authority and Consumer still get full service. */
  async function assertAlive(bridge: BridgeHandle, options: { signaling?: boolean } = {}): Promise<void> {
    const health = await httpJson(bridge.url, '/health');
    expect(health.status).toBe(200);
    const auth = await authority(bridge);
    const c = await consumer(bridge, auth);
    const lane = options.signaling === true ? { lane: 'signaling' } : {};
    const up = data();
    c.socket.send({ type: 'relay', data: up, ...lane });
    expect(await auth.socket.next()).toEqual({ type: 'relay', session: c.session, data: up, ...lane });
    const down = data();
    auth.socket.send({ type: 'relay', session: c.session, data: down, ...lane });
    expect(await c.socket.next()).toEqual({ type: 'relay', data: down, ...lane });
    c.socket.close();
    expect(await auth.socket.next()).toEqual({ type: 'session_close', session: c.session });
    auth.socket.close();
    await auth.socket.closedWithin();
  }

  async function expectClose(socket: TestSocket, code: number): Promise<Closed> {
    const closed = await socket.closedWithin();
    expect(closed.code).toBe(code);
    return closed;
  }

  async function upgradeStatus(socket: TestSocket): Promise<number | undefined> {
    await socket.opened.catch(() => {});
    return socket.rejectedStatus;
  }

  return { startBridge, sockets, useBridge, connect, authority, consumer, assertAlive, expectClose, upgradeStatus };
}
