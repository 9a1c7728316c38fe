/**
 * Issue 35 item 1 through the real `wfcli`: Pi's session folder (where agent
 * transcripts go) is on its own small tmpfs, as with `sessionDir` on another
 * disk or quota, and fills up. The run store has room. A transcript that
 * cannot be written is the host's fault, not the agent's: the script never
 * sees it (its `catch` would return "CAUGHT ..."), the run halts
 * `interrupted` with STORE_WRITE_FAILED naming the file, ENOSPC and the fix,
 * a torn transcript is cut back to its last whole entry, and once space is
 * back `wfcli resume` returns what an uninterrupted run returns.
 *
 * Mounting needs root (CI runs as root); elsewhere the suite is skipped and
 * says why. Needs `npm run build`.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHome, readJson, type CliHome } from './cli-home.js';
import { mountTmpfs } from '../support/tmpfs.js';

const disk = mountTmpfs('wf-session-full-', '1m');
const BIG = 'b'.repeat(100_000);
const SCRIPT = (prompt: string) => `try { return await agent('${prompt}'); } catch (e) { return 'CAUGHT ' + e.code + ': ' + e.message; }`;

let home: CliHome;

/** Every transcript of the run, whole lines only. */
function transcripts(runId: string): string[] {
  const folder = join(disk.dir, 'sessions', 'workflows', runId);
  return readdirSync(folder).map((name) => readFileSync(join(folder, name), 'utf8'));
}

function expectHalted(result: { code: number | null; stdout: string; stderr: string }, runId: string): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).not.toContain('CAUGHT');
  expect(result.stderr).toMatch(/STORE_WRITE_FAILED: cannot write \S+\.jsonl: no space left on the device \(ENOSPC\); free some space and try again/);
  expect(result.stderr).toContain(`wfcli resume ${runId}`);
  const snapshot = readJson(join(home.runDir(runId), 'snapshot.json')) as { state: string; failure?: { code: string } };
  expect(snapshot.state).toBe('interrupted');
  expect(snapshot.failure?.code).toBe('STORE_WRITE_FAILED');
  expect(readFileSync(join(home.runDir(runId), 'journal.jsonl'), 'utf8')).not.toContain('"op":"agent"');
}

describe.skipIf(disk.skip !== undefined)(`a full session folder${disk.skip === undefined ? '' : ` (skipped: ${disk.skip})`}`, () => {
  beforeAll(async () => {
    home = await createCliHome();
    const settings = join(home.pi.agentDir, 'settings.json');
    writeFileSync(settings, JSON.stringify({ ...(readJson(settings) as object), sessionDir: join(disk.dir, 'sessions') }));
    home.model.agent('PROMPT-BIG', () => ({ toolCalls: [{ name: 'workflow_result', arguments: { result: BIG } }] }));
  });
  afterAll(async () => {
    await home?.close();
    disk.unmount();
  });

  it('full before the first write: the run halts interrupted, never delivered; resumed with space, it returns the value', async () => {
    disk.fill(0);
    let runId: string;
    try {
      const launched = await home.wfcli(['run', '--script', home.script('first.js', SCRIPT('PROMPT-FIRST'))]);
      runId = home.runIdOf(launched);
      expectHalted(launched, runId);
    } finally {
      disk.free();
    }
    const resumed = await home.wfcli(['resume', runId]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toBe('PROMPT-FIRST: done');
  });

  it('full mid-transcript: the torn file is cut back to whole entries; resumed, the run returns the value', async () => {
    // Room for the header and the prompt, not for a 100 KB answer.
    disk.fill(16 * 1024);
    let runId: string;
    try {
      const launched = await home.wfcli(['run', '--script', home.script('big.js', SCRIPT('PROMPT-BIG'))]);
      runId = home.runIdOf(launched);
      expectHalted(launched, runId);
      const [torn] = transcripts(runId);
      expect(torn).toContain('PROMPT-BIG');
      expect(torn?.endsWith('\n')).toBe(true);
      // Every line is a whole entry: Pi's readers take it as it is.
      const entries = (torn ?? '').trimEnd().split('\n').map((line) => JSON.parse(line) as { type: string });
      expect(entries[0]?.type).toBe('session');
      expect(torn).not.toContain(BIG);
    } finally {
      disk.free();
    }
    const resumed = await home.wfcli(['resume', runId]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toBe(BIG);
    expect(transcripts(runId).some((text) => text.includes(BIG))).toBe(true);
  });
});
