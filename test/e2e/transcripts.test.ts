/**
 * Agent transcripts end to end, with the `pi` under test (both Pis): a
 * workflow with a parallel of two agents (one calling `bash` and `read`), an
 * agent retried once and a parent with a nested child, run by the loopback
 * model. Afterwards every attempt has its own 0600 Pi session file in the
 * run's transcript folder; `wfcli inspect --json` lists them and `wfcli
 * transcript` shows the tool calls; Pi's own session picker (`pi --resume`,
 * current folder and all) shows only the user's session. The trajectory
 * viewer (served for that session's run) shows each agent's messages and
 * tool calls in Chromium, and `wfcli report` writes a file that Chromium
 * opens offline showing the same, without making a single request.
 *
 * TRANSCRIPT_SCREENSHOT=<path> also writes a screenshot of the viewer there (docs/).
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKernel, WorkflowEngine } from '../../kernel/index.js';
import { createTrajectoryPlugin } from '../../plugins/trajectory/index.js';
import { defaultPiSessionDir } from '../../lib/transcripts/location.js';
import { createPiHome, installPackage, launchWorkflows, PI_CLI, runWfcli, type PiHome } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { TmuxTerminal } from './tmux/terminal.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const SESSION = 'transcripts';
const SCRIPT = `
  await parallel('pair', { tools: () => agent('TOOLS-AGENT read the notes', { label: 'reader' }), plain: () => agent('PLAIN-AGENT say hi', { label: 'greeter' }) });
  await parallel('more', { flaky: () => agent('FLAKY-AGENT try twice', { label: 'flaky', retries: 1 }), parent: () => agent('spawn:CHILD-TASK look around', { label: 'parent' }) });
  return 'all done';
`;

type Reference = { attempt: number; transport: string; sessionId: string; sessionFile: string };

let model: ScriptedModel;
let pi: PiHome;
let runId: string;
let sessions: Record<string, Reference[]>;
let labels: Map<string, string>;
let browser: Browser;

const fileOf = (label: string, attempt = 1): string => {
  const id = [...labels].find(([, name]) => name === label)![0];
  return sessions[id]!.find((entry) => entry.attempt === attempt)!.sessionFile;
};

beforeAll(async () => {
  model = await startScriptedModel();
  pi = createPiHome(model);
  await installPackage(pi);
  writeFileSync(join(pi.cwd, 'notes.txt'), 'NOTES-CONTENT-77aa\n');
  model.agent('TOOLS-AGENT read the notes', ({ request }) => {
    if (request === 1) return { text: 'Looking with **bash** first.', toolCalls: [{ name: 'bash', arguments: { command: 'echo BASH-OUT-1f2e' } }] };
    if (request === 2) return { toolCalls: [{ name: 'read', arguments: { path: 'notes.txt' } }] };
    return { toolCalls: [{ name: 'workflow_result', arguments: { result: 'the notes say NOTES-CONTENT-77aa' } }] };
  });
  model.agent('FLAKY-AGENT try twice', ({ request }) =>
    request === 1 ? { text: 'I forgot to submit (FLAKY-FIRST).' } : { toolCalls: [{ name: 'workflow_result', arguments: { result: 'second time lucky' } }] },
  );
  const launched = await launchWorkflows(pi, model, SESSION, [{ name: 'transcripts', script: SCRIPT }]);
  expect(launched[0]?.isError, launched[0]?.text).toBe(false);
  [runId] = pi.runIds(SESSION) as [string];
  const snapshot = pi.readJson(join(pi.runDir(SESSION, runId), 'snapshot.json')) as { state: string; agentSessions: Record<string, Reference[]>; agents: Record<string, { label: string }> };
  expect(snapshot.state).toBe('completed');
  sessions = snapshot.agentSessions;
  labels = new Map(Object.entries(snapshot.agents).map(([id, agent]) => [id, agent.label]));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  pi?.close();
  await model?.close();
});

describe(`agent transcripts (${PI_CLI.includes('pi-latest') ? 'Pi 1.x' : 'Pi 0.87'})`, () => {
  it('writes one 0600 Pi session file per attempt in the run folder; inspect lists them and transcript shows the tool calls', async () => {
    const folder = join(defaultPiSessionDir(realpathSync(pi.cwd), pi.agentDir), 'workflows', runId);
    const all = Object.values(sessions).flat();
    expect([...labels.values()].sort()).toEqual(['flaky', 'greeter', 'kid', 'parent', 'reader']);
    expect(all).toHaveLength(6);
    expect(new Set(all.map((entry) => entry.sessionFile)).size).toBe(6);
    for (const entry of all) {
      expect(dirname(entry.sessionFile)).toBe(folder);
      expect(statSync(entry.sessionFile).mode & 0o777).toBe(0o600);
      expect(readFileSync(entry.sessionFile, 'utf8').split('\n')[0]).toContain(`"id":"${entry.sessionId}"`);
    }
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(readFileSync(fileOf('flaky', 1), 'utf8')).toContain('FLAKY-FIRST');
    expect(readFileSync(fileOf('flaky', 2), 'utf8')).toContain('second time lucky');
    expect(readFileSync(fileOf('kid'), 'utf8')).toContain('CHILD-TASK look around');

    const inspect = await runWfcli(pi, ['inspect', SESSION, '--json']);
    expect(inspect.code, inspect.stderr).toBe(0);
    const [inspection] = JSON.parse(inspect.stdout) as { attempts: { agentId: string; attempt: number; transcript?: string }[] }[];
    expect(inspection!.attempts.map((entry) => entry.transcript).sort()).toEqual(all.map((entry) => entry.sessionFile).sort());

    const shown = await runWfcli(pi, ['transcript', fileOf('reader')]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('-> bash {"command":"echo BASH-OUT-1f2e"}');
    expect(shown.stdout).toContain('-> read {"path":"notes.txt"}');
    expect(shown.stdout).toContain('tool result bash: BASH-OUT-1f2e');
    expect(shown.stdout).toContain('NOTES-CONTENT-77aa');
    // Each assistant turn's tokens; the loopback model has no price in models.json, so its cost is unknown, never $0.0000.
    expect(shown.stdout).toMatch(/assistant \S+ \(\d[\d,]* in · \d[\d,]* out · cost unknown\):/);
    expect(shown.stdout).not.toContain('$0.0000');
  });

  it("keeps Pi's session picker to the user's own session, in this folder and in all", async () => {
    const terminal = new TmuxTerminal({
      cwd: realpathSync(pi.cwd),
      env: { PATH: process.env['PATH'], HOME: pi.home, PI_CODING_AGENT_DIR: pi.agentDir, PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
      command: [process.execPath, PI_CLI, '--resume'],
    });
    try {
      const current = await terminal.waitFor((screen) => screen.includes('Resume Session') && screen.includes('Run the workflows'), "the picker with the user's session");
      terminal.keys('Tab');
      const everywhere = await terminal.waitFor((screen) => screen.includes('◉ All') && screen.includes('Run the workflows'), 'the picker showing all sessions');
      for (const screen of [current, everywhere]) {
        for (const prompt of ['TOOLS-AGENT', 'PLAIN-AGENT', 'FLAKY-AGENT', 'CHILD-TASK']) expect(screen).not.toContain(prompt);
      }
    } finally {
      await terminal.close();
    }
  });

  it("shows each agent's messages and tool calls in the viewer, and the report offline makes no request", async () => {
    const engine = new WorkflowEngine({ kernel: createKernel({ plugins: [createTrajectoryPlugin()] }), sessionId: SESSION, root: join(pi.home, '.pi', 'workflows'), agentDir: pi.agentDir, home: pi.home });
    const profile = mkdtempSync(join(tmpdir(), 'wf-report-'));
    try {
      const command = engine.subcommands().find((entry) => entry.name === 'trajectory')!;
      const url = /http:\/\/\S+/.exec((await command.run({ args: runId, engine, cwd: realpathSync(pi.cwd), interactive: true })).text)![0];
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(url);
      await page.waitForSelector('#run[data-state="completed"]');
      // Nothing of a transcript is on the page before it is opened.
      expect(await page.content()).not.toContain('NOTES-CONTENT-77aa');
      expect(await page.locator('button.open-transcript').count()).toBe(6);
      await page.click(`button.open-transcript[data-agent="${[...labels].find(([, name]) => name === 'reader')![0]}"]`);
      const panel = page.locator('#transcripts section.transcript');
      await panel.locator('li[data-kind="tool"][data-tool="read"]').waitFor();
      expect(await panel.locator('li[data-kind="user"]').first().innerText()).toContain('TOOLS-AGENT read the notes');
      expect(await panel.locator('li[data-kind="assistant"] .md strong').first().innerText()).toBe('bash');
      expect(await panel.locator('li[data-kind="assistant"] .usage').first().innerText()).toMatch(/^\d[\d,]* in · \d[\d,]* out · cost unknown$/);
      expect(await page.locator('body').innerText()).not.toContain('$0.0000');
      expect(await panel.locator('.tool-call[data-tool="bash"] pre.args').innerText()).toContain('echo BASH-OUT-1f2e');
      expect(await panel.locator('li[data-kind="tool"][data-tool="bash"] pre.result').innerText()).toContain('BASH-OUT-1f2e');
      expect(await panel.locator('li[data-kind="tool"][data-tool="read"] pre.result').innerText()).toContain('NOTES-CONTENT-77aa');
      expect(await panel.locator('details.system-prompt summary').first().innerText()).toContain('Effective system prompt');
      expect((await panel.locator('table[id^="tool-timing"] tbody tr').allInnerTexts()).map((row) => row.split('\t').slice(0, 3).join(' ')).sort()).toEqual(['bash 1 0', 'read 1 0', 'workflow_result 1 0']);
      // Each other attempt opens too: the retried agent's first attempt holds its text answer.
      for (const [id, label] of labels) {
        for (const entry of sessions[id] ?? []) {
          await page.click(`button.open-transcript[data-agent="${id}"][data-attempt="${entry.attempt}"]`);
          await page.locator(`#transcripts section.transcript[data-agent="${id}"][data-attempt="${entry.attempt}"] li[data-kind="user"]`).first().waitFor();
          if (label === 'flaky' && entry.attempt === 1) expect(await page.locator('#transcripts li[data-kind="assistant"]').last().innerText()).toContain('FLAKY-FIRST');
        }
      }
      // Search names the transcripts that mention a text.
      await page.fill('#search-input', 'notes-content-77aa');
      await page.locator('#search-results li[data-where="transcript"]').first().waitFor();
      expect(await page.locator('#search-results li[data-where="transcript"]').allInnerTexts()).toEqual([expect.stringContaining('reader · attempt 1')]);
      const shot = process.env['TRANSCRIPT_SCREENSHOT'];
      if (shot) {
        await page.fill('#search-input', '');
        await page.click(`button.open-transcript[data-agent="${[...labels].find(([, name]) => name === 'reader')![0]}"]`);
        await page.locator('#transcripts li[data-tool="read"]').waitFor();
        writeFileSync(shot, await page.screenshot({ fullPage: true }));
      }
      await page.close();

      const output = join(profile, 'report.html');
      const written = await runWfcli(pi, ['report', runId, '--output', output]);
      expect([written.code, written.stdout.trim()], written.stderr).toEqual([0, output]);
      expect(statSync(output).mode & 0o777).toBe(0o600);
      const offline = await browser.newContext({ offline: true });
      const requests: string[] = [];
      offline.on('request', (request) => requests.push(request.url()));
      await offline.route('**/*', (route) => (route.request().url() === pathToFileURL(output).href ? route.continue() : route.abort()));
      const report = await offline.newPage();
      const errors: string[] = [];
      report.on('pageerror', (error) => errors.push(error.message));
      report.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())));
      await report.goto(pathToFileURL(output).href);
      await report.waitForSelector('#run[data-state="completed"]');
      expect(await report.locator('#transcripts section.transcript').count()).toBe(6);
      const readerSection = report.locator(`section.transcript[data-agent="${[...labels].find(([, name]) => name === 'reader')![0]}"]`);
      expect(await readerSection.locator('.tool-call[data-tool="bash"] pre.args').innerText()).toContain('echo BASH-OUT-1f2e');
      expect(await readerSection.locator('li[data-kind="tool"][data-tool="read"] pre.result').innerText()).toContain('NOTES-CONTENT-77aa');
      expect(await readerSection.locator('li[data-kind="assistant"] .usage').first().innerText()).toMatch(/^\d[\d,]* in · \d[\d,]* out · cost unknown$/);
      expect(await report.locator('body').innerText()).not.toContain('$0.0000');
      expect(await report.locator('ul.tree.top').innerText()).toMatch(/reader[\s\S]*greeter[\s\S]*flaky[\s\S]*parent[\s\S]*kid/);
      await report.fill('#search-input', 'flaky-first');
      await report.locator('#search-results li[data-where="transcript"]').first().waitFor();
      expect(requests.filter((target) => target !== pathToFileURL(output).href)).toEqual([]);
      expect(errors).toEqual([]);
      await offline.close();
    } finally {
      await engine.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
