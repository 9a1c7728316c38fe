/**
 * Viewer benchmark (`npm run bench:viewer`): how long headless Chromium takes
 * to open a `wfcli report` whose transcript is megabytes of unbroken words
 * (issue 35: target under 3 s for 4 MB). One agent, run in-process through
 * the Pi transport with pi-ai's faux provider, answers 40 times: half say a
 * 100,000-character base64 word, half print one with bash (the call's
 * arguments and its output hold it), then submits. The built `wfcli report`
 * writes the report; Chromium opens it from disk until its whole layout is
 * done. Prints:
 *
 *   BENCH report_long_words_open_ms   median over BENCH_VIEWER_SAMPLES (default 5) page loads
 *   BENCH report_long_words_mb        the transcript's size
 *   BENCH report_show_all_ms          pressing "show all" on one 100,000-character word, laid out
 *
 * Needs `npm run build` (the script runs it) and /usr/bin/chromium.
 */
import '../scripts/ts-resolve.mjs';

const { spawnSync } = await import('node:child_process');
const { randomBytes } = await import('node:crypto');
const fs = (await import('node:fs')).default;
const { join } = await import('node:path');
const { pathToFileURL } = await import('node:url');
const { chromium } = await import('playwright-core');
const { fauxAssistantMessage, fauxText, fauxToolCall } = await import('@earendil-works/pi-ai');
const { createKernel } = await import('../kernel/kernel.js');
const { WorkflowEngine } = await import('../kernel/engine/engine.js');
const { createPiTransportPlugin, RESULT_TOOL_NAME } = await import('../plugins/pi-transport/index.js');
const { createFauxAgentDir } = await import('../test/support/pi-agent-dir.js');

const SAMPLES = Number(process.env['BENCH_VIEWER_SAMPLES'] ?? 5);
const WORDS = 40;
const WFCLI = join(import.meta.dirname, '..', 'dist', 'cli', 'wfcli.js');

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const word = (index: number): string => `W${index}-${randomBytes(75_000).toString('base64')}`.slice(0, 100_000);

// A window that 4 MB of words never fills: Pi would compact the context, and each compaction takes an answer.
const dir = createFauxAgentDir({ models: [{ id: 'faux-1', name: 'Faux One', reasoning: true, contextWindow: 100_000_000, maxTokens: 16384 }] });
const engine = new WorkflowEngine({ kernel: createKernel({ plugins: [createPiTransportPlugin({ agentDir: dir.agentDir })] }), sessionId: 'viewer', root: join(dir.root, '.pi', 'workflows'), agentDir: dir.agentDir, home: dir.root });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'], headless: true });
try {
  dir.faux.setResponses([
    ...Array.from({ length: WORDS }, (_value, index) =>
      index % 2 === 0
        ? fauxAssistantMessage([fauxText(word(index)), fauxToolCall('bash', { command: 'echo ok' })], { stopReason: 'toolUse' })
        : fauxAssistantMessage(fauxToolCall('bash', { command: `printf %s ${word(index)}` }), { stopReason: 'toolUse' }),
    ),
    fauxAssistantMessage(fauxToolCall(RESULT_TOOL_NAME, { result: 'done' }), { stopReason: 'toolUse' }),
  ]);
  const handle = await engine.launch({ name: 'long-words', cwd: dir.cwd, script: `return await agent('say long words', { model: '${dir.model()}', tools: ['bash'] });` });
  const outcome = await handle.outcome;
  if (outcome.state !== 'completed') throw new Error(`the run ended ${outcome.state}: ${JSON.stringify(outcome.error)}`);
  const report = join(dir.root, 'report.html');
  const env = { ...process.env, HOME: dir.root, PI_CODING_AGENT_DIR: dir.agentDir };
  const written = spawnSync(process.execPath, [WFCLI, 'report', handle.runId, '--output', report], { cwd: dir.cwd, env, encoding: 'utf8' });
  if (written.status !== 0) throw new Error(`wfcli report failed: ${written.stderr}`);
  const transcripts = fs.readdirSync(join(dir.agentDir, 'sessions'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.jsonl'));
  const bytes = transcripts.reduce((sum, name) => sum + fs.statSync(join(dir.agentDir, 'sessions', name)).size, 0);

  const opens: number[] = [];
  let showAll = NaN;
  for (let sample = 0; sample <= SAMPLES; sample += 1) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const started = performance.now();
    await page.goto(pathToFileURL(report).href);
    await page.locator('#transcripts li[data-kind="assistant"]').first().waitFor();
    await page.evaluate(() => document.documentElement.scrollHeight);
    // The first load warms Chromium up.
    if (sample > 0) opens.push(performance.now() - started);
    if (sample === SAMPLES) {
      const shown = performance.now();
      await page.locator('button.show-all').first().click();
      await page.evaluate(() => document.documentElement.scrollHeight);
      showAll = performance.now() - shown;
    }
    await page.close();
  }
  console.log(`BENCH report_long_words_open_ms ${median(opens).toFixed(0)} ms`);
  console.log(`BENCH report_long_words_mb ${(bytes / 1024 / 1024).toFixed(1)} MB`);
  console.log(`BENCH report_show_all_ms ${showAll.toFixed(0)} ms`);
} finally {
  await browser.close();
  await engine.close();
  dir.close();
}
