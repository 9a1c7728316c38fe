/**
 * `wfcli view` end to end (issue 37 item 2), through the built `wfcli`: runs
 * stored by `wfcli run --script` in three sessions (each invocation is its
 * own session): two agents with transcripts, a failed run, and a run another
 * `wfcli run` still executes. The built `wfcli view` prints its URL; headless
 * Chromium opens the list (every session, every run, the live one marked)
 * and each run page (screenshots checked as PNGs of the viewport's size), a
 * transcript and search; a wrong token, a foreign Origin and a POST on a
 * run nobody executes are refused; the page's Stop stops the live run
 * through its owner; SIGTERM ends the viewer with exit 0.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPiHome, runWfcli, startWfcli, type PiHome, type PiProcess } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { runIdOf, RUN_ID } from './support/wfcli-output.js';
import { waitFor } from '../support/engine-harness.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const VIEWPORT = { width: 1280, height: 900 };
const AGENTS = "phase('review');\nawait parallel('reviews', { a: () => agent('VIEW-TASK look at a', { label: 'reviewer-a' }), b: () => agent('VIEW-TASK look at b', { label: 'reviewer-b' }) });\nlog('both reviewed');\nreturn 'reviewed';\n";
const FAILS = "log('about to fail');\nthrow new Error('planned failure 5d1c');\n";
const HOLDS = "phase('holding');\nawait shell('touch started-hold; while [ ! -f release-hold ]; do sleep 0.05; done');\nreturn 'released';\n";

let model: ScriptedModel;
let pi: PiHome;
let browser: Browser;
let shots: string;
let view: PiProcess;
let holder: PiProcess;
let url: string;
const ids = { agents: '', fails: '', holds: '' };

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
function pngSize(file: string): { width: number; height: number; bytes: number } {
  const data = readFileSync(file);
  expect(data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  expect(data.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20), bytes: data.length };
}

async function screenshot(page: Page, name: string): Promise<void> {
  const file = join(shots, `${name}.png`);
  await page.screenshot({ path: file });
  const size = pngSize(file);
  expect([size.width, size.height]).toEqual([VIEWPORT.width, VIEWPORT.height]);
  // A blank page of one colour compresses to a few hundred bytes; text and charts do not.
  expect(size.bytes).toBeGreaterThan(10_000);
}

beforeAll(async () => {
  model = await startScriptedModel();
  pi = createPiHome(model);
  shots = process.env['WFCLI_VIEW_SCREENSHOTS'] ?? mkdtempSync(join(tmpdir(), 'wfcli-view-shots-'));
  for (const [file, text] of [['agents.js', AGENTS], ['fails.js', FAILS], ['holds.js', HOLDS]] as const) writeFileSync(join(pi.cwd, file), text);
  const agents = await runWfcli(pi, ['run', '--script', 'agents.js']);
  expect(agents.code, agents.stderr).toBe(0);
  ids.agents = runIdOf(agents);
  const fails = await runWfcli(pi, ['run', '--script', 'fails.js']);
  expect(fails.code).toBe(1);
  ids.fails = runIdOf(fails);
  holder = startWfcli(pi, ['run', '--script', 'holds.js']);
  ids.holds = (await holder.printed(RUN_ID, 'stderr'))[1]!;
  await waitFor(() => existsSync(join(pi.cwd, 'started-hold')), 60_000, 'the held run to start its shell');
  view = startWfcli(pi, ['view']);
  url = (await view.printed(/^Workflow viewer: (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/)$/m))[1]!;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (pi) writeFileSync(join(pi.cwd, 'release-hold'), '');
  await holder?.exited;
  pi?.close();
  await model?.close();
  if (process.env['WFCLI_VIEW_SCREENSHOTS'] === undefined && shots) rmSync(shots, { recursive: true, force: true });
});

describe('wfcli view', () => {
  it('lists every stored run by session, newest first, the live one marked', async () => {
    const page = await browser.newPage({ viewport: VIEWPORT });
    await page.goto(url);
    await page.locator('section.session').nth(2).waitFor();
    expect(await page.locator('h1').innerText()).toBe('Workflow runs of this project');
    // Three wfcli invocations, three sessions; the newest run's session first.
    const sessions = page.locator('section.session');
    expect(await sessions.count()).toBe(3);
    const order = await page.locator('li[data-run]').evaluateAll((items) => items.map((item) => item.getAttribute('data-run')));
    expect(order).toEqual([ids.holds, ids.fails, ids.agents]);
    expect(await page.locator(`li[data-run="${ids.holds}"] .live`).innerText()).toBe('live');
    expect(await sessions.first().locator('h2 .live').count()).toBe(1);
    for (const id of [ids.fails, ids.agents]) expect(await page.locator(`li[data-run="${id}"] .live`).count()).toBe(0);
    expect(await page.locator(`li[data-run="${ids.agents}"]`).innerText()).toContain('agents · ' + ids.agents);
    expect(await page.locator(`li[data-run="${ids.agents}"] .badge`).innerText()).toBe('completed');
    expect(await page.locator(`li[data-run="${ids.fails}"] .badge`).innerText()).toBe('failed');
    expect(await page.locator('#hand-over').count()).toBe(0);
    await screenshot(page, 'list');
    await page.close();
  });

  it('opens each run page as the Pi viewer shows it: agents, transcripts, search, errors, read-only', async () => {
    const page = await browser.newPage({ viewport: VIEWPORT });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(url);
    await page.click(`li[data-run="${ids.agents}"] a`);
    await page.waitForSelector('#run[data-state="completed"]');
    expect(await page.locator('h1').innerText()).toBe('Workflow agents');
    expect(await page.locator('#result').innerText()).toContain('"reviewed"');
    expect(await page.locator('ul.tree.top').innerText()).toMatch(/review[\s\S]*reviewer-a[\s\S]*reviewer-b/);
    expect(await page.locator('#logs').innerText()).toContain('both reviewed');
    expect(await page.locator('#control-note').innerText()).toBe('No actions: the run has ended.');
    expect(await page.locator('#controls button').count()).toBe(0);
    await page.click('button.open-transcript >> nth=0');
    await page.locator('#transcripts li[data-kind="user"]').first().waitFor();
    expect(await page.locator('#transcripts li[data-kind="user"]').first().innerText()).toContain('VIEW-TASK look at');
    await page.fill('#search-input', 'view-task look at b');
    await page.locator('#search-results li[data-where="transcript"]').first().waitFor();
    expect(await page.locator('#search-results li[data-where="transcript"]').allInnerTexts()).toEqual([expect.stringContaining('reviewer-b · attempt 1')]);
    await screenshot(page, 'run-agents');

    await page.goto(`${url}runs/${ids.fails}`);
    await page.waitForSelector('#run[data-state="failed"]');
    expect(await page.locator('#error').innerText()).toContain('planned failure 5d1c');
    expect(await page.locator('#logs').innerText()).toContain('about to fail');
    await screenshot(page, 'run-failed');

    await page.goto(`${url}runs/${ids.holds}`);
    await page.waitForSelector('#run[data-state="running"]');
    expect(await page.locator('#live').innerText()).toBe('live');
    expect(await page.locator('#controls button').evaluateAll((buttons) => buttons.map((button) => button.getAttribute('data-action')))).toEqual(['stop']);
    expect(await page.locator('#control-note').innerText()).toMatch(/^Live in another session \(process \d+\): pause, resume and checkpoint decisions from that session's \/workflow\./);
    await screenshot(page, 'run-live');
    expect(errors).toEqual([]);
    await page.close();

    // The report downloads as from the Pi viewer.
    const report = await fetch(`${url}api/runs/${ids.agents}/report`);
    expect([report.status, report.headers.get('content-disposition')]).toEqual([200, `attachment; filename="${ids.agents}.html"`]);
    expect(await report.text()).toContain('VIEW-TASK look at a');
  });

  it('refuses a wrong token, a foreign Origin and a control of a run nobody executes', async () => {
    const { origin, pathname } = new URL(url);
    const token = pathname.split('/')[1]!;
    const wrong = await fetch(`${origin}/${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}/api/runs`);
    expect([wrong.status, await wrong.text()]).toEqual([403, 'forbidden: this viewer needs the URL wfcli view printed']);
    expect((await fetch(`${url}api/runs`, { headers: { origin: 'http://evil.example' } })).status).toBe(403);
    const control = (runId: string, headers: Record<string, string>) => fetch(`${url}api/runs/${runId}/actions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-workflow-viewer': '1', ...headers }, body: JSON.stringify({ action: 'stop' }) });
    expect((await control(ids.holds, { origin: 'http://evil.example' })).status).toBe(403);
    const stored = await control(ids.fails, { origin });
    expect([stored.status, await stored.json()]).toEqual([403, { error: `Run ${ids.fails} is failed: it has ended, nothing can change it.` }]);
  });

  it("stops the live run from its page through its owner, and ends on SIGTERM with exit 0", async () => {
    const page = await browser.newPage({ viewport: VIEWPORT });
    await page.goto(`${url}runs/${ids.holds}`);
    await page.waitForSelector('#run[data-state="running"]');
    await page.click('#controls button.control-stop');
    await page.click('#confirm-dialog button[data-answer="yes"]');
    await page.waitForSelector('#run[data-state="stopped"]');
    // The answer to the POST and the stream's new state arrive in either order.
    await page.locator('#control-message').filter({ hasText: `Stopped run ${ids.holds}` }).waitFor();
    await page.close();
    const held = await holder.exited;
    expect(held.stderr).toContain(`run ${ids.holds}`);
    expect((JSON.parse((await runWfcli(pi, ['status', ids.holds, '--json'])).stdout) as { state: string }).state).toBe('stopped');
    const ended = await view.terminate();
    expect([ended.code, ended.signal]).toEqual([0, null]);
  });
});
