/**
 * A RelayCore with a fake clock, deterministic randomness and a controllable
 * signature verifier, for the core's unit tests (core-room, core-auth).
 */
import { expect } from 'vitest';
import { base64urlEncode, createRelayCore, type Action, type Outcome, type RelayCore, type SignatureVerifier } from '../../relay/core/index.js';

export const KEY = base64urlEncode(new Uint8Array(32).fill(3));
export const OTHER = base64urlEncode(new Uint8Array(32).fill(4));
export const SIG = base64urlEncode(new Uint8Array(64).fill(5));

export interface Harness {
  core: RelayCore;
  clock: { now: number };
  /** Resolves pending verifications. */
  verdicts: ((ok: boolean) => void)[];
}

export function harness(env: Record<string, string> = {}, verify?: SignatureVerifier): Harness {
  const clock = { now: 1_000_000 };
  const verdicts: ((ok: boolean) => void)[] = [];
  let counter = 0;
  const core = createRelayCore({
    env,
    now: () => clock.now,
    random: (bytes) => {
      counter++;
      bytes.fill(0);
      bytes[0] = counter & 255;
      bytes[1] = counter >> 8;
    },
    verify: verify ?? (() => new Promise<boolean>((resolve) => verdicts.push(resolve))),
    sharePage: () => '<html></html>',
    shareScript: () => '',
  });
  return { core, clock, verdicts };
}

export const sync = (outcome: Outcome): Action[] => {
  if (!Array.isArray(outcome)) throw new Error('expected synchronous actions');
  return outcome;
};

export function sent(actions: Action[], socket: string): unknown[] {
  return actions.filter((a) => a.type === 'send' && a.socket === socket).map((a) => JSON.parse((a as { text: string }).text) as unknown);
}

export function closes(actions: Action[]): [string, number][] {
  return actions.filter((a) => a.type === 'close').map((a) => [a.socket, (a as { code: number }).code]);
}

/** Opens and authenticates an Authority socket (verifier accepts). */
export async function activeAuthority(h: Harness, socket: string, id = KEY): Promise<Action[]> {
  sync(h.core.open(socket, 'authority', id));
  const pending = h.core.message(socket, JSON.stringify({ type: 'auth', signature: SIG, proto: 1 }));
  h.verdicts.shift()!(true);
  return await pending;
}

export function joinConsumer(h: Harness, socket: string, id = KEY): string {
  const actions = sync(h.core.open(socket, 'consumer', id));
  const welcome = sent(actions, socket)[0] as { type: string; session: string };
  expect(welcome.type).toBe('welcome');
  return welcome.session;
}

