/**
 * Test clients for the relay behaviour suite: real `ws` sockets on loopback,
 * real Ed25519 keys from WebCrypto, and plain HTTP requests with chosen
 * headers (such as `Origin`).
 */
import { request } from 'node:http';
import { WebSocket, type ClientOptions } from 'ws';

export interface Closed {
  readonly code: number;
  readonly reason: string;
}

export interface HttpResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** Bytes → unpadded base64url (test-side, independent of the bridge's helper). */
export function b64u(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

export function randomBytes(length: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(length));
}

export async function httpGet(base: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<HttpResult> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

export async function httpJson(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown; headers: HttpResult['headers'] }> {
  const result = await httpGet(base, path, headers);
  return { status: result.status, json: JSON.parse(result.body) as unknown, headers: result.headers };
}

/** An Ed25519 Authority key pair and its Authority ID. */
export interface AuthorityKey {
  readonly id: string;
  sign(text: string): Promise<string>;
}

export async function newAuthorityKey(): Promise<AuthorityKey> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  return {
    id: b64u(raw),
    async sign(text) {
      return b64u(new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, pair.privateKey, new TextEncoder().encode(text))));
    },
  };
}

export function authText(authorityId: string, nonce: string): string {
  return `pi-relay-auth:1:${authorityId}:${nonce}`;
}

type Message = Record<string, unknown>;

/** Firefox's lingering close timeout; Chromium waits 2 s. */
export const BROWSER_CLOSE_TIMEOUT_MS = 1000;

/**
 * A WebSocket that records every message from the moment it is created, so
 * tests can await them in order and see everything that arrived before a close.
 */
export class TestSocket {
  readonly ws: WebSocket;
  /** Every text message received, parsed (or the raw text when not JSON). */
  readonly received: unknown[] = [];
  /** Resolves when open; rejects with the HTTP status when the upgrade is refused. */
  readonly opened: Promise<void>;
  /** Resolves with the close code and reason. */
  readonly closed: Promise<Closed>;
  /** HTTP status of a refused upgrade. */
  rejectedStatus: number | undefined;
  #read = 0;
  #waiters: (() => void)[] = [];
  #closedValue: Closed | undefined;

  /**
   * `closeTimeout`: how long after the closing handshake this client waits
   * for the server to end the TCP connection before ending it itself, as
   * browsers do (Chromium 2 s, Firefox 1 s). The edge worker needs it for a
   * socket that never sent a frame and that the room closes from another
   * socket's event: workerd sends the close frame at once but leaves the
   * connection to the client (docs/relay-worker.md, "Closing a silent
   * socket"). The Node adapter always ends it at once.
   */
  constructor(url: string, headers: Record<string, string> = {}, closeTimeout = BROWSER_CLOSE_TIMEOUT_MS) {
    // `closeTimeout` is a ws 8 option its type definitions (@types/ws 8.18) do not list yet.
    const options: ClientOptions & { closeTimeout: number } = { headers, perMessageDeflate: false, closeTimeout };
    this.ws = new WebSocket(url, options);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('unexpected-response', (_req, res) => {
        this.rejectedStatus = res.statusCode;
        res.resume();
        reject(new Error(`upgrade refused: HTTP ${res.statusCode}`));
        this.ws.terminate();
      });
      this.ws.once('error', (error) => reject(error));
    });
    this.opened.catch(() => {});
    this.closed = new Promise((resolve) => {
      this.ws.on('close', (code, reason) => {
        this.#closedValue = { code, reason: reason.toString() };
        resolve(this.#closedValue);
        this.#wake();
      });
    });
    this.ws.on('error', () => {});
    this.ws.on('message', (data, isBinary) => {
      const text = isBinary ? '<binary>' : (data as Buffer).toString('utf8');
      let value: unknown = text;
      try {
        value = JSON.parse(text);
      } catch {
        // keep the raw text
      }
      this.received.push(value);
      this.#wake();
    });
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** The next unread message; fails when the socket closes first or after `timeoutMs`. */
  async next(timeoutMs = 15_000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    while (this.#read >= this.received.length) {
      if (this.#closedValue !== undefined) throw new Error(`socket closed (${this.#closedValue.code} ${this.#closedValue.reason}) while waiting for a message`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for a message');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.received[this.#read++] as Message;
  }

  /** The next message, which must have this type. */
  async expect(type: string, timeoutMs?: number): Promise<Message> {
    const message = await this.next(timeoutMs);
    if (message['type'] !== type) throw new Error(`expected a ${type} message, got ${JSON.stringify(message)}`);
    return message;
  }

  /** Messages received but not yet read with next(). */
  unread(): unknown[] {
    return this.received.slice(this.#read);
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  sendBinary(bytes: Uint8Array): void {
    this.ws.send(bytes, { binary: true });
  }

  /** Waits for the close; fails after `timeoutMs`. */
  async closedWithin(timeoutMs = 15_000): Promise<Closed> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('timed out waiting for the socket to close')), timeoutMs);
    });
    try {
      return await Promise.race([this.closed, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  close(): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(1000);
  }
}

export function wsUrl(base: string, path: string): string {
  const url = new URL(path, base);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}
