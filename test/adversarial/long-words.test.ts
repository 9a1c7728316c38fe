/**
 * Issue 35 item 7 through the real `wfcli`: an agent whose transcript is
 * megabytes of unbroken words (40 answers, each a 100,000-character base64
 * word as minified code or a lock file reads, half of them said, half
 * printed by bash) must not stall the report or the
 * viewer. `wfcli report` writes the run's report; headless Chromium opens it
 * and it is ready (laid out) at once: each long text shows its start and a
 * "show all" button, long runs of characters carry break opportunities, and
 * "show all" brings the whole text, which still copies as it was.
 * The time it takes is a benchmark (bench/viewer.ts), not a test.
 * Needs `npm run build`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHome, type CliHome } from './cli-home.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const WORDS = 40;
const word = (index: number): string => `W${index}-${randomBytes(75_000).toString('base64')}`.slice(0, 100_000);
const words = Array.from({ length: WORDS }, (_value, index) => word(index));

let home: CliHome;
let dir: string;
let browser: Browser;
beforeAll(async () => {
  home = await createCliHome();
  dir = mkdtempSync(join(tmpdir(), 'wf-long-words-'));
  // Odd answers say a long word; even ones print one with bash (the call's arguments and its output hold it); the last submits.
  home.model.agent('PROMPT-LONG', ({ request }) => {
    const long = words[request - 1];
    if (long === undefined) return { toolCalls: [{ name: 'workflow_result', arguments: { result: 'read it all' } }] };
    return request % 2 === 1 ? { text: long, toolCalls: [{ name: 'bash', arguments: { command: 'echo ok' } }] } : { toolCalls: [{ name: 'bash', arguments: { command: `printf %s ${long}` } }] };
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
});
afterAll(async () => {
  await browser?.close();
  await home?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('long unbroken words', () => {
  it('megabytes of unbroken words open in the report laid out at once; show all brings a whole word back', async () => {
    const ran = await home.wfcli(['run', '--script', home.script('long.js', `return await agent('PROMPT-LONG', { tools: ['bash'] });`)]);
    expect(ran.code, ran.stderr).toBe(0);
    const runId = home.runIdOf(ran);
    const output = join(dir, 'report.html');
    const written = await home.wfcli(['report', runId, '--output', output]);
    expect(written.code, written.stderr).toBe(0);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(output).href);
    await page.locator('#transcripts section.transcript li[data-kind="assistant"]').first().waitFor();
    // Forces the whole page's layout (what used to stall); bench:viewer times it.
    await page.evaluate(() => document.documentElement.scrollHeight);
    const assistant = page.locator('li[data-kind="assistant"]');
    expect(await assistant.count()).toBe(WORDS + 1);
    expect(await page.locator('li[data-kind="tool"][data-tool="bash"]').count()).toBe(WORDS);
    // Each long text shows its start and says how long it is.
    const first = assistant.first();
    const shown = await first.locator('.md').innerText();
    expect(words[0]?.startsWith(shown.replace(/\s/g, ''))).toBe(true);
    expect(shown.length).toBeLessThan(10_000);
    const more = first.locator('button.show-all');
    expect(await more.innerText()).toContain('100,000 characters');
    await more.click();
    await first.locator('button.show-all').waitFor({ state: 'detached' });
    // The whole word is back; the break opportunities are <wbr> elements, which copy as nothing.
    expect((await first.locator('.md').innerText()).replace(/\s/g, '')).toBe(words[0]);
    expect((await first.locator('.md').evaluate((node) => node.textContent))?.trim()).toBe(words[0]);
    expect(await first.locator('.md wbr').count()).toBeGreaterThan(100);
    await page.close();
  });
});
