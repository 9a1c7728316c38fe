/**
 * The bridge end of a client's WebSocket, scripted by the relay client
 * tests, and the small waits they share.
 */
import { expect } from 'vitest';
import type { WebSocketLike } from '../../../relay/clients/socket.js';

/** A scripted bridge end of one WebSocket. */
export class FakeSocket implements WebSocketLike {
  readyState = 1;
  readonly sent: Record<string, unknown>[] = [];
  closedWith: { code: number | undefined; reason: string | undefined } | undefined;
  readonly #listeners = new Map<string, ((event: never) => void)[]>();
  readonly url: string;
  constructor(url: string) {
    this.url = url;
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }
  close(code?: number, reason?: string): void {
    this.closedWith = { code, reason };
    this.readyState = 3;
  }
  addEventListener(type: string, listener: (event: never) => void): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener]);
  }
  #emit(type: string, event: unknown): void {
    for (const listener of this.#listeners.get(type) ?? []) (listener as (event: unknown) => void)(event);
  }
  /** The bridge sends a message. */
  push(message: unknown): void {
    this.#emit('message', { data: typeof message === 'string' ? message : JSON.stringify(message) });
  }
  /** The bridge (or the network) closes the socket. */
  drop(code: number, reason = ''): void {
    this.readyState = 3;
    this.#emit('close', { code, reason });
  }
}

export const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
/** Waits for `condition`, which may hang on WebCrypto jobs in libuv's pool: up to 10 s on a busy machine. */
export async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition() && Date.now() < deadline) await flush();
  expect(condition()).toBe(true);
}

export const SID = 'c2Vzc2lvbi0wMDAwMDAwMA';
