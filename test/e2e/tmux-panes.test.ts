/**
 * The tmux pane integration through real parts: a private tmux server
 * (`-L`), the real `pi` CLI as the host (its environment names that server's
 * pane, as inside tmux) and as every agent's pane, and the scripted
 * loopback model. Screens are read with capture-pane; waits poll with a
 * bound and never sleep a fixed time.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runPi, startPi } from './support/pi-cli.js';
import { toolExecution } from './support/pi-events.js';
import { useScriptedPi } from './support/scripted-pi.js';

const RUN_ID = /wf-[0-9a-z]{9}-[0-9a-f]{8}/;
const socketName = `wf-panes-${randomBytes(4).toString('hex')}`;
const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', socketName, '-f', '/dev/null', ...args], { encoding: 'utf8' });

function runIdIn(text: string): string {
  const match = RUN_ID.exec(text);
  if (match === null) throw new Error(`no run ID in ${JSON.stringify(text)}`);
  return match[0];
}

/** Windows of the server: name → pane ID. */
function windows(): Map<string, string> {
  const rows = tmux('list-windows', '-a', '-F', '#{window_name}\t#{pane_id}').trim().split('\n');
  return new Map(rows.map((row) => row.split('\t') as [string, string]));
}

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; windows: ${[...windows().keys()].join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const paneOf = (prefix: string): string | undefined => [...windows()].find(([name]) => name.startsWith(prefix))?.[1];
const screenOf = (pane: string): string => tmux('capture-pane', '-p', '-t', pane);

/** A user extension that records, in each `pi` started for a pane, the settings file the pane got. */
const PROBE = `
import { readFileSync, statSync, writeFileSync } from 'node:fs';
export default function (pi) {
  const file = process.env.PI_EXTENSIBLE_WORKFLOWS_SETTINGS_FILE;
  if (!file) return;
  writeFileSync(process.env.HOME + '/settings-probe-' + process.pid + '.json', JSON.stringify({ mode: statSync(file).mode & 0o777, settings: JSON.parse(readFileSync(file, 'utf8')) }));
}
`;

describe('tmux panes in a real tmux server', () => {
  const scripted = useScriptedPi();
  const saved = { TMUX: process.env['TMUX'], TMUX_PANE: process.env['TMUX_PANE'] };
  const PANE_SETTINGS = { 'tmux-panes': { agents: { labels: ['alpha', 'beta', 'gam*'] } } };

  beforeAll(() => {
    tmux('new-session', '-d', '-s', 'host', '-x', '200', '-y', '50');
    const [socket, pid, pane] = tmux('display-message', '-p', '-t', 'host', '#{socket_path} #{pid} #{pane_id}').trim().split(' ');
    // The host `pi` runs as if in the pane `host`: what `TMUX` and `TMUX_PANE` say inside tmux.
    process.env['TMUX'] = `${socket},${pid},0`;
    process.env['TMUX_PANE'] = pane;
    mkdirSync(join(scripted.pi.agentDir, 'pi-extensible-workflows'), { recursive: true });
    writeFileSync(join(scripted.pi.agentDir, 'pi-extensible-workflows', 'settings.json'), JSON.stringify({ extensionSettings: PANE_SETTINGS }));
    mkdirSync(join(scripted.pi.agentDir, 'extensions'), { recursive: true });
    writeFileSync(join(scripted.pi.agentDir, 'extensions', 'settings-probe.ts'), PROBE);
  });
  afterAll(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    try {
      tmux('kill-server');
    } catch {
      // Already gone.
    }
  });

  it('runs two agents in panes, returns their results, and reopens their sessions read-only', async () => {
    const script = "const [a, b] = await Promise.all([agent('Alpha task', { label: 'alpha' }), agent('Beta task', { label: 'beta' })]);\nreturn { a, b };";
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    scripted.model.holdNext('Alpha task', gate);
    scripted.model.holdNext('Beta task', gate);
    scripted.model.main(({ toolResults }) =>
      toolResults.length === 0 ? { toolCalls: [{ name: 'workflow', arguments: { name: 'pair', script, foreground: true } }] } : { text: 'done' },
    );
    const host = startPi(scripted.pi, ['--mode', 'json', '--approve', '--session-id', 'panes', 'Run the pair']);
    const exited = host.exited.then((result) => {
      throw new Error(`pi ended early:\n${result.stdout}\n${result.stderr}`);
    });
    await Promise.race([Promise.all([scripted.model.waitForAgentRequest('Alpha task', 1), scripted.model.waitForAgentRequest('Beta task', 1)]), exited]);

    // Both agents are interactive pi sessions in windows named after label and run ID, showing their task.
    const alpha = await waitFor('the alpha window', () => paneOf('alpha wf-'));
    const beta = await waitFor('the beta window', () => paneOf('beta wf-'));
    const [alphaName] = [...windows()].find(([, pane]) => pane === alpha) ?? [''];
    await waitFor('the alpha task on screen', () => (screenOf(alpha).includes('Alpha task') ? true : undefined));
    await waitFor('the beta task on screen', () => (screenOf(beta).includes('Beta task') ? true : undefined));
    release();
    const result = await Promise.race([host.exited, exited]);
    expect(result.code, result.stderr).toBe(0);

    const launch = toolExecution(result.stdout, 'workflow');
    expect(launch.isError, launch.text).toBe(false);
    const runId = runIdIn(launch.text);
    expect(alphaName).toBe(`alpha ${runId}`);
    const runDir = scripted.pi.runDir('panes', runId);
    expect(scripted.pi.readJson(join(runDir, 'result.json'))).toEqual({ a: 'Alpha task: done', b: 'Beta task: done' });
    // The panes closed with their sessions.
    expect(paneOf('alpha wf-')).toBeUndefined();

    // Each pane's pi got the frozen extension settings in a private file.
    const probes = readdirSync(scripted.pi.home).filter((name) => name.startsWith('settings-probe-'));
    expect(probes.length).toBe(2);
    for (const probe of probes) expect(scripted.pi.readJson(join(scripted.pi.home, probe))).toEqual({ mode: 0o600, settings: PANE_SETTINGS });

    // The persisted references name the panes' sessions; the read-only viewer shows a transcript.
    const snapshot = scripted.pi.readJson(join(runDir, 'snapshot.json')) as { agentSessions: Record<string, Record<string, string>[]> };
    const references = Object.values(snapshot.agentSessions).flat();
    expect(references).toHaveLength(2);
    for (const reference of references) expect(reference).toMatchObject({ transport: 'tmux', sessionId: expect.any(String), sessionFile: expect.any(String) });
    // The panes' pi wrote their sessions in the run's transcript folder (out of the user's /resume list), 0600.
    for (const reference of references) {
      expect(reference['sessionFile']).toContain(`/sessions/`);
      expect(dirname(reference['sessionFile']!).endsWith(`/workflows/${runId}`)).toBe(true);
      expect(statSync(reference['sessionFile']!).mode & 0o777).toBe(0o600);
    }
    const alphaReference = references.find((reference) => reference['label'] === 'alpha');
    const entry = (await import(pathToFileURL(join(REPO_ROOT, 'dist', 'plugins', 'tmux-panes', 'library.js')).href)) as typeof import('../../plugins/tmux-panes/index.js');
    const context = {
      run: { runId },
      agent: { state: 'completed', label: 'alpha' },
      attempt: { attempt: 1 },
      sessionReference: alphaReference,
      signal: new AbortController().signal,
      ui: { notify: () => undefined, confirm: async () => false, select: async () => undefined, input: async () => undefined },
    };
    expect(entry.tmuxPanesExtension.agentAttemptActions?.['tmux-panes.open']?.visible(context as never)).toBe(false);
    const inspect = entry.tmuxPanesExtension.agentAttemptActions?.['tmux-panes.inspect'];
    expect(inspect?.visible(context as never)).toBe(true);
    await inspect?.run(context as never);
    const viewer = await waitFor('the read-only window', () => paneOf(`alpha ${runId} (read-only)`));
    const screen = await waitFor('the transcript', () => {
      const text = screenOf(viewer);
      return text.includes('Alpha task') && text.includes('workflow_result') ? text : undefined;
    });
    expect(screen).toContain('── user');
    tmux('kill-pane', '-t', viewer);
  });

  it("runs a pane agent's nested child through the host's agent tool", async () => {
    // `spawn:` makes the scripted agent call `agent`, then `get_subagent_result`; both run in the host.
    const script = "return await agent('spawn:Child job', { label: 'alpha' });";
    scripted.model.main(({ toolResults }) =>
      toolResults.length === 0 ? { toolCalls: [{ name: 'workflow', arguments: { name: 'nested', script, foreground: true } }] } : { text: 'done' },
    );
    const { stdout } = await runPi(scripted.pi, ['--mode', 'json', '--approve', '--session-id', 'nested', 'Run nested']);
    const launch = toolExecution(stdout, 'workflow');
    expect(JSON.parse(launch.text), launch.text).toMatchObject({ state: 'completed' });
    const runDir = scripted.pi.runDir('nested', runIdIn(launch.text));
    expect(scripted.pi.readJson(join(runDir, 'result.json'))).toBe('spawn:Child job: done with (Child job: done)');
    const snapshot = scripted.pi.readJson(join(runDir, 'snapshot.json')) as { agentSessions: Record<string, Record<string, string>[]> };
    // The parent ran in a pane; its child (label "kid", not chosen) in process.
    expect(Object.values(snapshot.agentSessions).flat().map((entry) => entry['transport']).sort()).toEqual(['pi', 'tmux']);
  });

  it('fails an agent whose pane is killed with AGENT_FAILED, and a retry completes it', async () => {
    const script = "return await agent('Gamma task', { label: 'gamma' });";
    scripted.model.holdNext('Gamma task');
    scripted.model.main(({ prompt, toolResults }) => {
      if (toolResults.length > 0) return { text: 'done' };
      if (prompt === 'Run gamma') return { toolCalls: [{ name: 'workflow', arguments: { name: 'gamma', script, foreground: true } }] };
      return { toolCalls: [{ name: 'workflow_retry', arguments: { runId: runIdIn(prompt), foreground: true } }] };
    });
    const host = startPi(scripted.pi, ['--mode', 'json', '--approve', '--session-id', 'killed', 'Run gamma']);
    await scripted.model.waitForAgentRequest('Gamma task', 1);
    const gamma = await waitFor('the gamma window', () => paneOf('gamma wf-'));
    tmux('kill-pane', '-t', gamma);
    const failed = await host.exited;
    const launch = toolExecution(failed.stdout, 'workflow');
    expect(JSON.parse(launch.text)).toMatchObject({ state: 'failed', error: { code: 'AGENT_FAILED' } });
    expect(launch.text).toMatch(/tmux pane .* closed/);
    const runId = runIdIn(launch.text);

    const { stdout } = await runPi(scripted.pi, ['--mode', 'json', '--approve', '--session-id', 'killed', `Retry ${runId}`]);
    const retry = toolExecution(stdout, 'workflow_retry');
    expect(retry.isError, retry.text).toBe(false);
    expect(JSON.parse(retry.text), retry.text).toMatchObject({ state: 'completed' });
    const retried = runIdIn(retry.text);
    expect(scripted.pi.readJson(join(scripted.pi.runDir('killed', retried), 'result.json')), retry.text).toMatch(/^Gamma task/);
    const retriedSnapshot = scripted.pi.readJson(join(scripted.pi.runDir('killed', retried), 'snapshot.json')) as { agentSessions: Record<string, Record<string, string>[]> };
    expect(Object.values(retriedSnapshot.agentSessions).flat().at(-1)).toMatchObject({ transport: 'tmux', label: 'gamma' });
  });

  it('is left out by a package filter: inside tmux, chosen agents then run in process', async () => {
    const settingsFile = join(scripted.pi.agentDir, 'settings.json');
    const original = readFileSync(settingsFile, 'utf8');
    const settings = JSON.parse(original) as { packages?: (string | { source: string; extensions?: string[] })[] };
    settings.packages = (settings.packages ?? []).map((entry) => {
      const source = typeof entry === 'string' ? entry : entry.source;
      return resolve(scripted.pi.agentDir, source) === resolve(REPO_ROOT) ? { source, extensions: ['-dist/plugins/tmux-panes/index.js'] } : entry;
    });
    writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
    try {
      scripted.model.main(({ toolResults }) =>
        toolResults.length === 0
          ? { toolCalls: [{ name: 'workflow', arguments: { name: 'filtered', script: "return await agent('Filtered task', { label: 'alpha' });", foreground: true } }] }
          : { text: 'done' },
      );
      const { stdout } = await runPi(scripted.pi, ['--mode', 'json', '--approve', '--session-id', 'filtered', 'Run filtered']);
      const launch = toolExecution(stdout, 'workflow');
      expect(JSON.parse(launch.text), launch.text).toMatchObject({ state: 'completed' });
      const snapshot = scripted.pi.readJson(join(scripted.pi.runDir('filtered', runIdIn(launch.text)), 'snapshot.json')) as { agentSessions: Record<string, Record<string, string>[]> };
      expect(Object.values(snapshot.agentSessions).flat()).toEqual([expect.objectContaining({ transport: 'pi' })]);
      expect(paneOf('alpha wf-')).toBeUndefined();
    } finally {
      writeFileSync(settingsFile, original);
    }
  });
});
