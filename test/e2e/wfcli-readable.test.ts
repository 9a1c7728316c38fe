/**
 * Issue 37 items 5, 8 and 9 through the built `wfcli`: `list` has a header row,
 * `status` and `inspect` name agents by label (the raw IDs stay in `--json`),
 * `status` labels the wall and the active time,
 * and `report` writes into the run's own folder, leaving the project's
 * working tree untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPiHome, runWfcli, type PiHome } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const RUN_ID = /^run (wf-[0-9a-z]{9}-[0-9a-f]{8})$/m;

describe('wfcli: readable names and a report kept out of the project', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  let runId = '';
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    writeFileSync(join(pi.cwd, 'reviews.js'), "await parallel('reviews', { a: () => agent('look at a', { label: 'reviewer' }), b: () => agent('look at b', { label: 'reviewer' }) });\nreturn 'ok';\n");
    const ran = await runWfcli(pi, ['run', '--script', 'reviews.js']);
    expect(ran.code, ran.stderr).toBe(0);
    runId = RUN_ID.exec(ran.stderr)?.[1] ?? '';
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  it('list starts with a header row; --json is the summaries alone', async () => {
    const listed = await runWfcli(pi, ['list']);
    expect(listed.code, listed.stderr).toBe(0);
    const [header, row, ...rest] = listed.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^RUN +STATE +WORKFLOW +SESSION +UPDATED +AGENTS$/);
    expect(row).toMatch(new RegExp(`^${runId} +completed +reviews +\\S+ +\\S+ +2 agent\\(s\\)$`));
    expect(rest).toEqual([]);
    // The columns line up under the header.
    expect(row?.indexOf('completed')).toBe(header?.indexOf('STATE'));
    const json = JSON.parse((await runWfcli(pi, ['list', '--json'])).stdout) as { runId: string }[];
    expect(json.map((entry) => entry.runId)).toEqual([runId]);
  });

  it('status and inspect name the agents by label and branch; --json keeps their IDs', async () => {
    const status = await runWfcli(pi, ['status', runId]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('    reviewer (parallel reviews/a): completed, 1 attempt,');
    expect(status.stdout).toContain('    reviewer (parallel reviews/b): completed, 1 attempt,');
    expect(status.stdout).not.toMatch(/\|\d+:\d+#\d/);
    const json = JSON.parse((await runWfcli(pi, ['status', runId, '--json'])).stdout) as { agents: { id: string; label: string }[] };
    expect(json.agents.map((agent) => agent.id).sort()).toEqual([expect.stringMatching(/^parallel:reviews\/a\|\d+:\d+#0$/), expect.stringMatching(/^parallel:reviews\/b\|\d+:\d+#0$/)]);
    const inspect = await runWfcli(pi, ['inspect']);
    expect(inspect.code, inspect.stderr).toBe(0);
    expect(inspect.stdout).toMatch(/^ {2}attempt {4}reviewer \(parallel reviews\/a\) attempt 1: /m);
    expect(inspect.stdout).not.toMatch(/\|\d+:\d+#\d/);
  });

  it('status shows the wall and the active time, labelled; --json adds them as `time` and keeps `activeMs`', async () => {
    const status = await runWfcli(pi, ['status', runId]);
    expect(status.stdout).toMatch(/^ {2}time {7}\d\S*( \S+)* wall · \d\S*( \S+)* active$/m);
    const json = JSON.parse((await runWfcli(pi, ['status', runId, '--json'])).stdout) as { createdAt: string; terminalAt: string; activeMs: number; time: { wallMs: number; activeMs: number } };
    expect(json.time).toEqual({ wallMs: Date.parse(json.terminalAt) - Date.parse(json.createdAt), activeMs: json.activeMs });
    expect(json.activeMs).toBeLessThanOrEqual(json.time.wallMs);
  });

  it('report writes report.html into the run folder, 0600, and prints its path; the project is untouched', async () => {
    const before = readdirSync(pi.cwd).sort();
    const reported = await runWfcli(pi, ['report', runId]);
    expect(reported.code, reported.stderr).toBe(0);
    const written = reported.stdout.trim();
    const [runDir] = readdirSync(join(pi.home, '.pi', 'workflows', 'projects'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name === runId)
      .map((entry) => join(entry.parentPath, entry.name));
    expect(written).toBe(join(runDir ?? '', 'report.html'));
    expect(statSync(written).mode & 0o777).toBe(0o600);
    expect(readFileSync(written, 'utf8')).toMatch(/^<!doctype html>/i);
    expect(readdirSync(pi.cwd).sort()).toEqual(before);
    // The run still reads as a whole run with its report in it.
    expect((await runWfcli(pi, ['status', runId])).code).toBe(0);
  });
});
