/**
 * Shared by the crash tests (`crash.test.ts`, `agents.test.ts`): what a host
 * process reports on stdout (see `host.ts`) and how the parent reads it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { JOURNAL_FILE } from '../../kernel/store/index.js';

/**
 * Node's arguments for a host process whose main module is TypeScript (`child.ts`, `fuzz-host.ts` ...): the
 * resolve hook goes in first, so the main module itself comes from its strip cache too.
 */
export const TS_HOST_ARGV: readonly string[] = ['--import', pathToFileURL(join(import.meta.dirname, '..', '..', 'scripts', 'ts-resolve.mjs')).href];

export interface Outcome {
  readonly runId: string;
  readonly state: string;
  readonly value?: unknown;
  readonly error?: { code: string; message: string };
}

export type HostError = { code: string; message: string };

export interface HostReportHandlers {
  /** `RUN <runId> <runDir>`. */
  onRun(runId: string | undefined, runDir: string | undefined): void;
  /** `OUTCOME <json>`. */
  onOutcome(outcome: Outcome): void;
  /** `ERROR <json>`. */
  onError(error: HostError): void;
}

/** Reads a host's stdout line by line and dispatches its RUN, OUTCOME and ERROR reports. */
export function readHostReports(stdout: Readable, handlers: HostReportHandlers): void {
  let buffered = '';
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      const [tag, ...rest] = line.split(' ');
      if (tag === 'RUN') {
        handlers.onRun(rest[0], rest[1]);
      } else if (tag === 'OUTCOME') {
        handlers.onOutcome(JSON.parse(rest.join(' ')) as Outcome);
      } else if (tag === 'ERROR') {
        handlers.onError(JSON.parse(rest.join(' ')) as HostError);
      }
    }
  });
}

/** Collects a host's stderr; read `text` once the host has closed. */
export function collectStderr(stderr: Readable): { readonly text: string } {
  const collected = { text: '' };
  stderr.setEncoding('utf8');
  stderr.on('data', (chunk: string) => (collected.text += chunk));
  return collected;
}

/** A seeded pseudo-random number generator (mulberry32): kill points repeat per seed. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Journal lines on disk now (0 before the journal exists). */
export function journalLines(runDir: string): number {
  try {
    const data = readFileSync(join(runDir, JOURNAL_FILE));
    let lines = 0;
    for (const byte of data) if (byte === 0x0a) lines += 1;
    return lines;
  } catch {
    return 0;
  }
}

/** How many times each line of `<cwd>/ledger.txt` appears (every shell of the test workflows appends its tag there). */
export function ledger(cwd: string): Map<string, number> {
  const counts = new Map<string, number>();
  const file = join(cwd, 'ledger.txt');
  if (!existsSync(file)) return counts;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line !== '') counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return counts;
}
