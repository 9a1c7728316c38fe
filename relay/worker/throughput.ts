/**
 * Relay throughput against any running bridge (either adapter): one
 * authenticated Authority, one Consumer, and the time for N Consumer relay
 * messages to reach the Authority. Uses the standard `WebSocket` (Node 22).
 */
import { authChallengeText, generateAuthorityKey, signText } from '../clients/keys.js';
import { bridgeSocketUrl, parseBridgeMessage, type BridgeMessage } from '../clients/socket.js';

export interface ThroughputResult {
  readonly messages: number;
  readonly seconds: number;
  readonly msgsPerSecond: number;
}

/** A WebSocket whose JSON messages are awaited in order. */
class BridgeSocket {
  readonly ws: WebSocket;
  readonly closed: Promise<{ code: number; reason: string }>;
  #queue: BridgeMessage[] = [];
  #waiter: (() => void) | undefined;
  /** Called for every message instead of queueing it, while set. */
  onMessage: ((message: BridgeMessage) => void) | undefined;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    this.closed = new Promise((resolve) => ws.addEventListener('close', (event) => resolve({ code: event.code, reason: event.reason })));
    ws.addEventListener('message', (event) => {
      const message = parseBridgeMessage(event.data);
      if (message === undefined) return;
      if (this.onMessage !== undefined) return this.onMessage(message);
      this.#queue.push(message);
      this.#waiter?.();
    });
    this.closed.then(() => this.#waiter?.());
  }

  static open(url: string): Promise<BridgeSocket> {
    const ws = new WebSocket(url);
    const socket = new BridgeSocket(ws);
    return new Promise((resolve, reject) => {
      ws.addEventListener('open', () => resolve(socket));
      ws.addEventListener('error', () => reject(new Error(`WebSocket to ${url} failed`)));
    });
  }

  send(message: object | string): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The next message; rejects when the socket closes first or after `timeoutMs`. */
  async next(type?: string, timeoutMs = 10_000): Promise<BridgeMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const message = this.#queue.shift();
      if (message !== undefined) {
        if (type !== undefined && message.type !== type) throw new Error(`expected ${type}, got ${JSON.stringify(message)}`);
        return message;
      }
      if (this.ws.readyState >= WebSocket.CLOSING) throw new Error(`socket closed while waiting for ${type ?? 'a message'}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${type ?? 'a message'}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#waiter = undefined;
    }
  }

  close(): Promise<{ code: number; reason: string }> {
    if (this.ws.readyState < WebSocket.CLOSING) this.ws.close(1000);
    return this.closed;
  }
}

/** Opens an Authority socket for a fresh key and completes the challenge. */
async function connectAuthority(url: string): Promise<{ socket: BridgeSocket; authorityId: string }> {
  const key = await generateAuthorityKey();
  const socket = await BridgeSocket.open(bridgeSocketUrl(url, 'authority', key.authorityId));
  const challenge = await socket.next('challenge');
  socket.send({ type: 'auth', proto: 1, signature: await signText(key, authChallengeText(key.authorityId, String(challenge['nonce']))) });
  await socket.next('ready');
  return { socket, authorityId: key.authorityId };
}

export async function measureRelayThroughput(url: string, options: { readonly messages?: number } = {}): Promise<ThroughputResult> {
  const messages = options.messages ?? 5000;
  const { socket: authority, authorityId } = await connectAuthority(url);
  const consumer = await BridgeSocket.open(bridgeSocketUrl(url, 'consumer', authorityId));
  try {
    await consumer.next('welcome');
    await authority.next('session_open');
    let received = 0;
    const done = new Promise<void>((resolve, reject) => {
      authority.onMessage = (message) => {
        if (message.type === 'relay' && ++received === messages) resolve();
      };
      void authority.closed.then(({ code }) => reject(new Error(`authority closed with ${code} after ${received} messages`)));
    });
    // 96 bytes of ciphertext as base64url.
    const frame = JSON.stringify({ type: 'relay', data: 'A'.repeat(128) });
    const start = performance.now();
    for (let i = 0; i < messages; i++) consumer.ws.send(frame);
    await done;
    const seconds = (performance.now() - start) / 1000;
    return { messages, seconds, msgsPerSecond: messages / seconds };
  } finally {
    await Promise.all([consumer.close(), authority.close()]);
  }
}
