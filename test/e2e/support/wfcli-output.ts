/** Reading what `wfcli` printed: the run ID it announces on stderr, and its JSON on stdout. */
import { expect } from 'vitest';
import type { PiResult } from './pi-cli.js';

/** The `run <id>` line wfcli writes to stderr when a run starts. */
export const RUN_ID = /^run (wf-[0-9a-z]{9}-[0-9a-f]{8})$/m;

export function runIdOf(result: PiResult): string {
  const id = RUN_ID.exec(result.stderr)?.[1];
  if (id === undefined) throw new Error(`no run ID on stderr:\n${result.stderr}`);
  return id;
}

/** The JSON of a successful command's stdout. */
export function json(result: PiResult): unknown {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as unknown;
}
