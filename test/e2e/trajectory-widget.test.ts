/**
 * The real `pi` CLI with this package installed: the background widget in
 * a terminal under tmux (a background run appears above the editor, updates
 * as its agents move, and leaves a receipt in the transcript and the session
 * file when it ends), its absence in print mode, and `/workflow trajectory`
 * with and without the trajectory entry (a package filter leaves it out: the
 * command then reports that the viewer is disabled).
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deferred } from '../support/engine-harness.js';
import { createPiHome, installPackage, runPi, type PiHome } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { piTerminal, submitPrompt } from './tmux/pi-terminal.js';

const SCRIPT = "phase('scan'); await agent('Widget task one', { label: 'scout' }); await agent('Widget task two', { label: 'fixer' }); return 'ok';";

/** Every file under `dir` whose text contains `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => {
    const path = join(dir, file);
    return statSync(path).isFile() && readFileSync(path, 'utf8').includes(needle);
  });
}

describe('the background widget and /workflow trajectory in a pi process', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  let packageRoot: string;
  /** Requests of the main session so far: a submitted prompt makes one. */
  let mainTurns = 0;
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    packageRoot = await installPackage(pi);
    model.main(async ({ prompt, toolResults }) => {
      mainTurns += 1;
      if (toolResults.length === 0) return { toolCalls: [{ name: 'workflow', arguments: { name: 'bg', script: SCRIPT } }] };
      // "…and wait": keep the (print-mode) process busy until the background run has ended.
      const runId = /wf-[0-9a-z]+-[0-9a-f]+/.exec(toolResults[0] ?? '')?.[0];
      if (prompt.endsWith('and wait') && runId !== undefined) {
        const snapshot = join(pi.runDir('printed', runId), 'snapshot.json');
        for (let i = 0; i < 300 && (pi.readJson(snapshot) as { state: string }).state !== 'completed'; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return { text: 'Noted.' };
    });
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  it('draws a background run above the editor, updates it, and leaves a receipt when it ends', async () => {
    const first = deferred();
    const second = deferred();
    model.holdNext('Widget task one', first.promise);
    model.holdNext('Widget task two', second.promise);
    const terminal = piTerminal(pi, ['--approve', '--session-id', 'widget']);
    try {
      const before = mainTurns;
      await submitPrompt(terminal, 'Run it in the background', () => mainTurns > before);
      const appeared = await terminal.waitFor((screen) => screen.includes('Background workflows (1)') && screen.includes('scout · running'), 'the widget with the running scout');
      expect(appeared).toMatch(/◆ bg · wf-[0-9a-z]+-[0-9a-f]+ · running · phase scan · 1 agent: 1 running/);
      expect(appeared).toContain('phase scan');
      first.resolve();
      // Updated without a key press: the scout completed, the fixer runs.
      await terminal.waitFor((screen) => screen.includes('scout · completed') && screen.includes('fixer · running'), 'the widget to follow the run');
      second.resolve();
      const done = await terminal.waitFor((screen) => /✓ Workflow bg \(wf-[^)]+\) completed · 2 agents/.test(screen) && !screen.includes('Background workflows'), 'the receipt, and the widget gone');
      expect(done).not.toContain('fixer · running');
    } finally {
      await terminal.close();
    }
    // The receipt is a custom entry of the session file: durable, and never a message to the model.
    const sessions = join(pi.agentDir, 'sessions');
    const withReceipt = filesContaining(sessions, '"customType":"workflow-receipt"');
    expect(withReceipt).toHaveLength(1);
    const entry = readFileSync(join(sessions, withReceipt[0]!), 'utf8').split('\n').find((line) => line.includes('"workflow-receipt"'))!;
    expect(JSON.parse(entry)).toMatchObject({ type: 'custom', customType: 'workflow-receipt', data: { workflow: 'bg', state: 'completed', agents: 2 } });
  });

  it('draws nothing in print mode', async () => {
    const { stdout, stderr } = await runPi(pi, ['-p', '--approve', '--session-id', 'printed', 'Run it in the background and wait']);
    // The background run ended inside this process (so a receipt would have been due) ...
    const [runId] = pi.runIds('printed');
    expect((pi.readJson(join(pi.runDir('printed', runId!), 'snapshot.json')) as { state: string }).state).toBe('completed');
    // ... yet no widget was drawn and no receipt written.
    expect(stdout + stderr).not.toContain('Background workflows');
    expect(filesContaining(join(pi.agentDir, 'sessions'), '"customType":"workflow-receipt"').filter((file) => readFileSync(join(pi.agentDir, 'sessions', file), 'utf8').includes('printed'))).toEqual([]);
  });

  it('/workflow trajectory answers with the entry loaded, and reports the viewer disabled when a package filter leaves it out', async () => {
    const loaded = await runPi(pi, ['-p', '--approve', '--no-session', '/workflow trajectory']);
    expect(loaded.stdout).toContain('The trajectory viewer serves pages only while an interactive Pi session runs');
    const settingsFile = join(pi.agentDir, 'settings.json');
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as { packages?: (string | { source: string; extensions?: string[] })[] };
    settings.packages = (settings.packages ?? []).map((entry) => {
      const source = typeof entry === 'string' ? entry : entry.source;
      return resolve(pi.agentDir, source) === resolve(packageRoot) ? { source, extensions: ['-dist/trajectory/index.js'] } : entry;
    });
    writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
    const filtered = await runPi(pi, ['-p', '--approve', '--no-session', '/workflow trajectory']);
    expect(filtered.stdout).toContain('The trajectory viewer is disabled: its entry (dist/trajectory/index.js) is not loaded in this session.');
  });
});
