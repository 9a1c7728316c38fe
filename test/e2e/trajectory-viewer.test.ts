/**
 * The trajectory viewer in headless Chromium (Debian's /usr/bin/chromium via
 * playwright-core), on a run whose three agents are real Pi sessions on the
 * loopback OpenAI-compatible provider: a lead that spawns a nested scout
 * through the `agent` tool, and a flaky agent whose first attempt ends
 * without a result and is retried. The page is opened while the run is
 * live: it must show the tree and the bars, receive the run's completion as
 * a live update, never show a prompt, tool argument or result anywhere in
 * the page or its network traffic (responses and Server-Sent Events), and
 * make a screenshot that is not blank. Requests without the token, or from
 * another origin, are refused.
 *
 * The run page's controls act on a second run as `/workflow` would: pause,
 * cancel the pause, pause again, resume, approve a checkpoint and stop (with
 * the confirmations answered in the page's dialog, which shows the
 * checkpoint's prompt and context as text, scrolling inside the dialog),
 * each reflected on the page without a reload;
 * the same POST from another origin, or without the token, is refused and
 * changes nothing.
 *
 * TRAJECTORY_SCREENSHOT=<path> also writes the screenshot there (docs/).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { checkpointsPlugin } from '../../plugins/checkpoints/index.js';
import { createPiTransportPlugin } from '../../plugins/pi-transport/index.js';
import { createTrajectoryPlugin } from '../../plugins/trajectory/index.js';
import { createKernel, RESULT_TOOL_NAME, WorkflowEngine, type RunHandle } from '../../kernel/index.js';
import { createTempAgentDir, type TempAgentDir } from '../support/pi-agent-dir.js';
import { gated, gateStarted, release, waitFor } from '../support/engine-harness.js';
import { startOpenAiServer, type OpenAiServer, type RecordedRequest, type ScriptedTurn } from '../support/pi-openai-server.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Text that must never reach the page: prompts, tool arguments, tool and agent results. */
const SECRETS = ['PROMPT-LEAD-7f3a', 'PROMPT-SCOUT-91c2', 'PROMPT-FLAKY-5d0e', 'ARG-LABEL-SCOUT', 'RESULT-SCOUT-b81f', 'RESULT-LEAD-44ad', 'RESULT-FLAKY-c3e9'];

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : '')).join('') : '';
}

interface Script {
  readonly server: OpenAiServer;
  /** Resolves the held second attempt of the flaky agent. */
  release(): void;
  readonly flakyHeld: Promise<void>;
}

/** The loopback model: answers each agent by its task, with tool calls streamed over HTTP. */
async function startModel(): Promise<Script> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const flakyHeld = new Promise<void>((resolve) => (held = resolve));
  let flakyAttempts = 0;
  const respond = (request: RecordedRequest): ScriptedTurn | Promise<ScriptedTurn> => {
    const messages = request.body.messages ?? [];
    const task = text(messages.find((message) => message.role === 'user')?.content);
    const tools = messages.filter((message) => message.role === 'tool').map((message) => text(message.content));
    const usage = { promptTokens: 1200, completionTokens: 300 };
    if (task.includes('PROMPT-SCOUT')) return { toolCalls: [{ name: RESULT_TOOL_NAME, arguments: { result: 'RESULT-SCOUT-b81f' } }], usage: { promptTokens: 800, completionTokens: 200 } };
    if (task.includes('PROMPT-LEAD')) {
      if (tools.length === 0) return { toolCalls: [{ name: 'agent', arguments: { prompt: 'PROMPT-SCOUT-91c2 look around ARG-LABEL-SCOUT', label: 'scout' } }], usage };
      if (tools.length === 1) return { toolCalls: [{ name: 'get_subagent_result', arguments: { id: (JSON.parse(tools[0]!) as { id: string }).id } }], usage };
      return { toolCalls: [{ name: RESULT_TOOL_NAME, arguments: { result: 'RESULT-LEAD-44ad' } }], usage };
    }
    if (task.includes('PROMPT-FLAKY')) {
      if (tools.length > 0) return { text: 'done' };
      flakyAttempts += 1;
      // Attempt 1 ends without workflow_result (a failed attempt); attempt 2 waits for the test.
      if (flakyAttempts === 1) return { text: 'I forgot to submit.', usage: { promptTokens: 500, completionTokens: 100 } };
      held();
      return released.then(() => ({ toolCalls: [{ name: RESULT_TOOL_NAME, arguments: { result: 'RESULT-FLAKY-c3e9' } }], usage }));
    }
    return { text: 'unexpected' };
  };
  const server = await startOpenAiServer(respond);
  return { server, release, flakyHeld };
}

let model: Script;
let dir: TempAgentDir;
let engine: WorkflowEngine;
let run: RunHandle;
let context: BrowserContext;
let profile: string;
let url: string;

beforeAll(async () => {
  model = await startModel();
  dir = createTempAgentDir({
    providers: {
      local: {
        baseUrl: model.server.baseUrl,
        api: 'openai-completions',
        apiKey: 'test-key',
        models: [{ id: 'local-model', name: 'Local', reasoning: false, input: ['text'], cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 }, contextWindow: 32000, maxTokens: 4096 }],
      },
    },
  });
  const kernel = createKernel({ plugins: [checkpointsPlugin, createPiTransportPlugin({ agentDir: dir.agentDir }), createTrajectoryPlugin()] });
  engine = new WorkflowEngine({ kernel, sessionId: 'viewer-e2e', root: join(dir.root, 'runs'), agentDir: dir.agentDir, home: dir.root });
  run = await engine.launch({
    name: 'review',
    cwd: dir.cwd,
    script: `
      phase('explore');
      await agent('PROMPT-LEAD-7f3a: plan the review', { label: 'lead', model: 'local/local-model' });
      phase('check');
      log('lead finished; checking');
      await parallel('checks', { flaky: () => agent('PROMPT-FLAKY-5d0e: check it', { label: 'checker', model: 'local/local-model', retries: 1 }) });
      return 'three agents done';
    `,
  });
  const command = engine.subcommands().find((entry) => entry.name === 'trajectory')!;
  const answer = await command.run({ args: run.runId, engine, cwd: dir.cwd, interactive: true });
  url = /http:\/\/\S+/.exec(answer.text)![0];
  profile = mkdtempSync(join(tmpdir(), 'wf-chromium-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, headless: true, viewport: { width: 1280, height: 900 } });
}, 120_000);

afterAll(async () => {
  model?.release();
  await context?.close();
  await engine?.close();
  await model?.server.close();
  dir?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** Milliseconds of a duration the page shows (`850 ms`, `12.3 s`, `4 m 05 s`). */
function millis(text: string): number {
  const minutes = /^(\d+) m (\d+) s$/.exec(text);
  if (minutes) return (Number(minutes[1]) * 60 + Number(minutes[2])) * 1000;
  const seconds = /^([\d.]+) s$/.exec(text);
  if (seconds) return Number(seconds[1]) * 1000;
  const ms = /^(\d+) ms$/.exec(text);
  if (ms) return Number(ms[1]);
  throw new Error(`not a duration: ${text}`);
}

/** A page of the shared context whose state a failing test prints: where it is, what it shows, what it logged. */
async function openPage(): Promise<Page> {
  const page = await context.newPage();
  const logged: string[] = [];
  page.on('console', (message) => logged.push(`console.${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => logged.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => logged.push(`request failed: ${request.url()} (${request.failure()?.errorText ?? 'unknown'})`));
  onTestFailed(async () => {
    const shown = page.isClosed() ? '(closed)' : await page.innerText('body').catch((error: unknown) => `(unreadable: ${String(error)})`);
    console.error(`the page at ${page.isClosed() ? '(closed)' : page.url()} shows:\n${shown.slice(0, 4000)}\nits last messages:\n${logged.slice(-20).join('\n')}`);
  });
  return page;
}

describe('the trajectory viewer in Chromium', () => {
  it('shows the tree and the attempt bars live, receives the end as an update, never shows prompts, tool arguments or results, and screenshots', async () => {
    const page = await openPage();
    const traffic: string[] = [];
    page.on('request', (request) => traffic.push(request.url(), request.postData() ?? ''));
    page.on('response', (response) => {
      if (!(response.headers()['content-type'] ?? '').startsWith('text/event-stream')) void response.text().then((body) => traffic.push(body), () => undefined);
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    cdp.on('Network.eventSourceMessageReceived', (message: { data: string }) => void traffic.push(message.data));

    await Promise.race([model.flakyHeld, run.outcome.then((outcome) => Promise.reject(new Error(`the run ended early: ${JSON.stringify(outcome)}`)))]);
    await page.goto(url);
    // Live: the retried agent's second attempt is running, held by the model.
    await page.waitForSelector('#timeline rect[data-status="running"]', { timeout: 30_000 });
    expect(await page.textContent('#run .summary')).toContain('live');
    // The session's page names the viewer that outlives it (issue 37 item 2).
    expect(await page.textContent('#hand-over')).toContain('wfcli view in the project folder shows every stored run of the project and keeps working after the session ends');
    const treeText = (await page.textContent('ul.tree.top'))!;
    for (const part of ['phase explore', 'lead', 'scout', 'phase check', 'parallel checks', 'flaky', 'checker']) expect(treeText).toContain(part);
    // The nested scout sits under the lead's row; the checker under its parallel group.
    const scoutParent = await page.evaluate(() => {
      const scout = Array.from(document.querySelectorAll('span.agent-row > strong')).find((node) => node.textContent === 'scout');
      return scout?.closest('li.node-agent')?.parentElement?.closest('li.node-agent')?.querySelector(':scope > span.agent-row > strong')?.textContent;
    });
    expect(scoutParent).toBe('lead');
    expect(await page.locator('li.node-group li.node-agent span.agent-row strong').allTextContents()).toContain('checker');
    const updatesBefore = Number((await page.getAttribute('body', 'data-updates')) ?? '0');

    model.release();
    await page.waitForSelector('#run[data-state="completed"]', { timeout: 30_000 });
    expect(Number(await page.getAttribute('body', 'data-updates'))).toBeGreaterThan(updatesBefore);
    // Bars: one per attempt on the time axis; the checker has a failed then a completed attempt.
    const bars = await page.locator('#timeline rect').evaluateAll((rects) => rects.map((rect) => [rect.getAttribute('data-agent') ?? '', rect.getAttribute('data-attempt'), rect.getAttribute('data-status'), Number(rect.getAttribute('width'))] as const));
    expect(bars.filter(([, , status]) => status === 'completed')).toHaveLength(3);
    expect(bars.filter(([, attempt, status]) => attempt === '1' && status === 'failed')).toHaveLength(1);
    expect(bars.every(([, , , width]) => width >= 2)).toBe(true);
    const checkerBars = bars.filter(([id]) => id.includes('parallel:checks'));
    expect(checkerBars.map(([, attempt, status]) => [attempt, status])).toEqual([['1', 'failed'], ['2', 'completed']]);
    expect(await page.locator('#timeline rect title').first().textContent()).toMatch(/local\/local-model/);
    expect(await page.locator('#usage rect.bar-tokens').count()).toBe(3);
    expect(await page.textContent('#result')).toContain('three agents done');
    expect(await page.textContent('#logs')).toContain('lead finished; checking');

    const html = await page.content();
    const all = [html, await page.innerText('body'), ...traffic].join('\n');
    expect(traffic.some((entry) => entry.includes('"state":"completed"'))).toBe(true);
    for (const secret of SECRETS) expect(all, secret).not.toContain(secret);

    const shot = await page.screenshot({ fullPage: true });
    const out = process.env['TRAJECTORY_SCREENSHOT'];
    if (out) writeFileSync(out, shot);
    // Not blank: decoded in a blank page, the screenshot has many distinct colours.
    const blank = await context.newPage();
    const colours = await blank.evaluate(async (data) => {
      const image = new Image();
      image.src = `data:image/png;base64,${data}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const g = canvas.getContext('2d')!;
      g.drawImage(image, 0, 0);
      const pixels = g.getImageData(0, 0, canvas.width, canvas.height).data;
      const seen = new Set<number>();
      for (let i = 0; i < pixels.length; i += 4 * 97) seen.add((pixels[i]! << 16) | (pixels[i + 1]! << 8) | pixels[i + 2]!);
      return seen.size;
    }, shot.toString('base64'));
    expect(colours).toBeGreaterThan(20);
    await blank.close();
    await page.close();
  });

  it('refuses a request without the token, and a request from another origin', async () => {
    const page = await openPage();
    const { origin, pathname } = new URL(url);
    const bare = await page.goto(`${origin}/api/runs`);
    expect(bare?.status()).toBe(403);
    expect(await page.textContent('body')).not.toContain(run.runId);
    // A page of another origin (a second loopback server) fetching the API with the token.
    const other = await startOpenAiServer(() => ({ text: '' }));
    await page.goto(`${new URL(other.baseUrl).origin}/elsewhere`);
    const read = await page.evaluate(async (target) => {
      try {
        const response = await fetch(target);
        return `read ${response.status}`;
      } catch (error) {
        return `blocked ${(error as Error).name}`;
      }
    }, `${origin}${pathname.split('/').slice(0, 2).join('/')}/api/runs`);
    expect(read).toMatch(/^blocked/);
    // The server side of the refusal (an Origin that is not the viewer's gets 403) is pinned in test/plugins/trajectory/server.test.ts.
    await other.close();
    await page.close();
  });

  it('pauses, cancels the pause, resumes, approves a checkpoint and stops from the page; another origin or a missing token changes nothing', async () => {
    // Script-chosen markup must show as text; 100 lines must scroll inside the dialog, not stretch it.
    const shipPrompt = `<b id="injected">Ship</b> release 1.2?\n${Array.from({ length: 100 }, (_, line) => `line ${line}`).join('\n')}`;
    const controlled = await engine.launch({
      name: 'controlled',
      cwd: dir.cwd,
      script: `await shell(${JSON.stringify(gated('c1'))}); await shell(${JSON.stringify(gated('c2'))}); const answer = await checkpoint({ name: 'ship', prompt: ${JSON.stringify(shipPrompt)}, context: { pr: 42, note: '<img id="ctx-injected" src="x">' } }); await shell(${JSON.stringify(gated('c3'))}); return answer;`,
    });
    const state = () => engine.status(dir.cwd, controlled.runId).state;
    const runUrl = url.replace(run.runId, controlled.runId);
    const page = await openPage();
    await gateStarted(dir.cwd, 'c1');
    await page.goto(runUrl);
    const answer = async (reply: 'yes' | 'no') => {
      await page.waitForSelector('#confirm-dialog[open]');
      await page.click(`#confirm-dialog button[data-answer="${reply}"]`);
      await page.waitForSelector('#confirm-dialog', { state: 'detached' });
    };
    const click = async (selector: string, to: string, confirm = false) => {
      await page.click(selector);
      if (confirm) await answer('yes');
      await page.waitForSelector(`#run[data-state="${to}"]`);
      expect(state()).toBe(to);
    };
    await click('button[data-action="pause"]', 'pausing');
    await click('button[data-action="cancel-pause"]', 'running');

    // Refusals: a page of another origin posting with the header (blocked before sending: the preflight fails), and
    // without it as a simple request (sent, refused by the server); the page itself posting without the token.
    const other = await startOpenAiServer(() => ({ text: '' }));
    const foreign = await context.newPage();
    await foreign.goto(`${new URL(other.baseUrl).origin}/elsewhere`);
    const target = `${runUrl.replace(/runs\/[^/]+$/, '')}api/runs/${controlled.runId}/actions`;
    const tried = await foreign.evaluate(async (address) => {
      const outcomes: string[] = [];
      try {
        await fetch(address, { method: 'POST', headers: { 'content-type': 'application/json', 'x-workflow-viewer': '1' }, body: JSON.stringify({ action: 'stop' }) });
        outcomes.push('sent');
      } catch {
        outcomes.push('blocked');
      }
      await fetch(address, { method: 'POST', mode: 'no-cors', body: JSON.stringify({ action: 'stop' }) }).then(() => outcomes.push('opaque'), () => outcomes.push('blocked'));
      return outcomes;
    }, target);
    expect(tried[0]).toBe('blocked');
    await foreign.close();
    await other.close();
    const tokenless = await page.evaluate(async (address) => {
      const response = await fetch(address, { method: 'POST', headers: { 'content-type': 'application/json', 'x-workflow-viewer': '1' }, body: JSON.stringify({ action: 'stop' }) });
      return response.status;
    }, target.replace(/\/[A-Za-z0-9_-]{32}\/api\//, '/api/'));
    expect(tokenless).toBe(403);
    expect(state()).toBe('running');

    await click('button[data-action="pause"]', 'pausing');
    release(dir.cwd, 'c1');
    await page.waitForSelector('#run[data-state="paused"]');
    // Paused long enough for the wait to show as a band on the timeline.
    const pausedAt = Date.now();
    await waitFor(() => Date.now() >= pausedAt + 1500, 10_000, 'the pause to last');
    await click('button[data-action="resume"]', 'running');
    await gateStarted(dir.cwd, 'c2');
    release(dir.cwd, 'c2');
    await page.waitForSelector('button[data-action="approve"][data-checkpoint="ship"]');
    expect(state()).toBe('awaiting_input');
    // The dialog shows what is approved, as text, bounded; Cancel decides nothing.
    await page.click('button[data-action="approve"][data-checkpoint="ship"]');
    await page.waitForSelector('#confirm-dialog[open]');
    expect(await page.textContent('#confirm-prompt')).toBe(shipPrompt);
    expect(JSON.parse((await page.textContent('#confirm-context')) ?? '')).toEqual({ pr: 42, note: '<img id="ctx-injected" src="x">' });
    expect(await page.textContent('#confirm-question')).toBe(`Approve checkpoint "ship" of run ${controlled.runId}? The decision is final.`);
    expect(await page.$('#injected')).toBeNull();
    expect(await page.$('#ctx-injected')).toBeNull();
    const sizes = await page.evaluate(() => {
      const prompt = document.querySelector('#confirm-prompt') as HTMLElement;
      return { dialog: (document.querySelector('#confirm-dialog') as HTMLElement).getBoundingClientRect().height, viewport: window.innerHeight, scroll: prompt.scrollHeight, client: prompt.clientHeight };
    });
    expect(sizes.dialog).toBeLessThanOrEqual(sizes.viewport);
    expect(sizes.scroll).toBeGreaterThan(sizes.client);
    await answer('no');
    expect(state()).toBe('awaiting_input');
    await page.click('button[data-action="approve"][data-checkpoint="ship"]');
    await answer('yes');
    await gateStarted(dir.cwd, 'c3');
    await page.waitForSelector('#checkpoints td:text("approved")');
    expect(engine.status(dir.cwd, controlled.runId).checkpoints.map((entry) => entry.state)).toEqual(['approved']);
    await click('button[data-action="stop"]', 'stopped', true);
    expect(await page.textContent('#control-message')).toBe(`Stopped run ${controlled.runId}`);
    release(dir.cwd, 'c3');

    // Wall and active time, each labelled; the pause and the checkpoint wait marked on the timeline; the checkpoint in its own list.
    await page.waitForSelector('#timeline g.wait[data-wait="checkpoint"][data-checkpoint="ship"][data-open="false"]');
    const wall = (await page.textContent('#wall-time')) ?? '';
    const active = (await page.textContent('#active-time')) ?? '';
    expect(wall).toMatch(/ wall$/);
    expect(active).toMatch(/ active$/);
    // The cancelled pause (pausing, then running again) was no wait: the run never stopped.
    const paused = page.locator('#timeline g.wait[data-wait="paused"]');
    expect(await paused.count()).toBe(1);
    const pauseLabel = (await paused.locator('text').textContent()) ?? '';
    expect(pauseLabel).toMatch(/^paused · /);
    expect(await page.textContent('#timeline g.wait[data-wait="checkpoint"] text')).toMatch(/^checkpoint "ship" · /);
    expect(await page.locator('#timeline rect.wait-band').count()).toBe(2);
    expect(millis(pauseLabel.replace('paused · ', ''))).toBeGreaterThanOrEqual(1500);
    // The pause alone kept the active clock still for 1.5 s; both texts are rounded to a tenth of a second.
    expect(millis(active.replace(' active', ''))).toBeLessThanOrEqual(millis(wall.replace(' wall', '')) - 1400);
    const [name, decision, asked, decided, waited] = await page.locator('#checkpoints tbody tr td').allTextContents();
    expect([name, decision]).toEqual(['ship', 'approved']);
    expect(asked).toMatch(/^\+\d/);
    expect(decided).toMatch(/^\+\d/);
    expect(waited).toMatch(/^\d/);
    // Only shells and the checkpoint ran: there is no tool call to list.
    expect(await page.$('#calls')).toBeNull();
    expect(await page.textContent('#run')).toContain('No tool calls.');
    const out = process.env['TRAJECTORY_WAITS_SCREENSHOT'];
    if (out) writeFileSync(out, await page.screenshot({ fullPage: true }));
    await page.close();
  });
});
