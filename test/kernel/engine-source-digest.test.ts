/**
 * workflow.js is immutable (issue 24 item 6): its SHA-256 is in snapshot.json
 * from creation; resume and retry refuse a changed source; a run created
 * before digests were recorded stays resumable and gets one on resume.
 */
import { createHash } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, gated, gateStarted, rejectionOf, release, type Harness } from '../support/engine-harness.js';

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => {
  await h.close();
});

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');
const script = `await shell(${JSON.stringify(gated())});\nreturn 'done';\n`;

/** A run interrupted while its gated shell runs. */
async function interrupted(): Promise<{ cwd: string; runId: string; runDir: string }> {
  const cwd = h.freshCwd('digest');
  const first = h.newEngine();
  const handle = await first.launch({ name: 'digest', cwd, script });
  await gateStarted(cwd);
  await first.close();
  expect((await handle.outcome).state).toBe('interrupted');
  release(cwd);
  return { cwd, runId: handle.runId, runDir: handle.runDir };
}

describe('the digest of workflow.js', () => {
  it('is recorded at creation: the SHA-256 of the file bytes', async () => {
    const outcome = await h.run("return 'x';");
    expect(h.snapshot(outcome.runDir).sourceSha256).toBe(sha256(join(outcome.runDir, 'workflow.js')));
  });

  it('a changed source is refused on resume, naming the file; the run stays interrupted; the original resumes', async () => {
    const { cwd, runId, runDir } = await interrupted();
    const file = join(runDir, 'workflow.js');
    chmodSync(file, 0o600);
    writeFileSync(file, script.replace("'done'", "'edited'"));
    const error = await rejectionOf(h.newEngine().resume(cwd, runId));
    expect(error).toMatchObject({ code: 'RESUME_INCOMPATIBLE', details: { reason: 'source_changed', path: file, expected: h.snapshot(runDir).sourceSha256 } });
    expect(error.message).toMatch(/^Cannot resume run \S+: its workflow\.js \(.+\) was changed after the run was created .*relaunch instead/);
    expect(h.snapshot(runDir).state).toBe('interrupted');
    writeFileSync(file, script);
    expect((await (await h.newEngine().resume(cwd, runId)).outcome).value).toBe('done');
  });

  it('a run without one (created before digests) resumes as it is and records the digest of its source then', async () => {
    const { cwd, runId, runDir } = await interrupted();
    h.writeSnapshot(runDir, (snapshot) => delete snapshot['sourceSha256']);
    const outcome = await (await h.newEngine().resume(cwd, runId)).outcome;
    expect(outcome.value).toBe('done');
    expect(h.snapshot(runDir).sourceSha256).toBe(sha256(join(runDir, 'workflow.js')));
  });
});
