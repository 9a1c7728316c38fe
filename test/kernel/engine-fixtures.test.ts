/**
 * Recorded runs of earlier engine versions (test/fixtures/runs) still
 * resume: their completed operations replay (none runs again) and the rest
 * runs, to the value the script computes.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/engine-harness.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/runs/', import.meta.url));

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(() => h.close());

/** Installs a recorded run in a fresh project of this harness, as if this session had left it interrupted. */
function install(name: string): { cwd: string; runId: string; runDir: string } {
  const from = join(FIXTURES, name);
  const snapshot = JSON.parse(readFileSync(join(from, 'snapshot.json'), 'utf8')) as { runId: string; cwd: string; sessionId: string };
  const cwd = h.freshCwd(name);
  const runDir = h.runDir(snapshot.runId, cwd);
  mkdirSync(join(runDir, 'evidence'), { recursive: true });
  for (const file of ['workflow.js', 'journal.jsonl']) copyFileSync(join(from, file), join(runDir, file));
  writeFileSync(join(runDir, 'snapshot.json'), JSON.stringify({ ...snapshot, cwd, sessionId: h.sessionId }, null, 2));
  copyFileSync(join(from, 'ledger'), join(cwd, 'ledger'));
  // The gated shell that was running when the run was interrupted may finish now.
  writeFileSync(join(cwd, 'release-fixture'), '');
  return { cwd, runId: snapshot.runId, runDir };
}

function ledger(cwd: string): string[] {
  return readFileSync(join(cwd, 'ledger'), 'utf8').split('\n').filter((line) => line !== '');
}

describe('recorded runs resume', () => {
  it('a version 1 journal (before call identities) replays unchecked and unordered', async () => {
    const { cwd, runId } = install('v1-interrupted');
    const handle = await h.engine.resume(cwd, runId);
    expect(await handle.outcome).toMatchObject({ state: 'completed', value: { a: 'a', b: 'echo:remember', x: 'x', y: 'y', caught: 'SHELL_FAILED', c: 'c\n' } });
    // Journaled results keep the output recorded then (trimmed before shell output became byte-exact); `c` runs now, byte for byte.
    // Journaled shells did not run again; the unjournaled failure ran again (version 1 did not journal failures).
    expect(ledger(cwd)).toEqual(['a', 'y', 'x', 't', 't', 'gate', 'c']);
  });

  it('a version 2 journal replays in its recorded order, with its journaled failure', async () => {
    const { cwd, runId, runDir } = install('v2-interrupted');
    const handle = await h.engine.resume(cwd, runId);
    // `first` is the race's recorded winner; the timed-out shell is replayed as its failure, not run again.
    expect(await handle.outcome).toMatchObject({ state: 'completed', value: { a: 'a', b: 'echo:remember', x: 'x', y: 'y', first: 'fast', caught: 'SHELL_FAILED', c: 'c\n' } });
    const lines = ledger(cwd);
    expect(lines.slice(0, 5)).toEqual(['a', 'y', 'x', 'fast', 't']);
    // The race's loser was still running when the run was interrupted: it runs now, beside the gate and `c`.
    expect(lines.slice(5).filter((line) => line !== 'slow')).toEqual(['gate', 'c']);
    expect(lines.filter((line) => line === 't')).toHaveLength(1);
    expect(h.journal(runDir).filter((record) => record['kind'] === 'failure')).toHaveLength(1);
  });
});
