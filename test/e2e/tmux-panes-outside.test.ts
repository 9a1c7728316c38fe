/**
 * Outside tmux the tmux-panes entry loads and does nothing: with settings
 * that would put every agent in a pane, a real `pi` without `TMUX`, and one
 * whose `TMUX` names a server that does not answer, run the agent in process
 * (the Pi transport's reference) and report no error.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPi } from './support/pi-cli.js';
import { toolExecution } from './support/pi-events.js';
import { useScriptedPi } from './support/scripted-pi.js';

const RUN_ID = /wf-[0-9a-z]{9}-[0-9a-f]{8}/;

describe('the tmux-panes entry outside tmux', () => {
  const scripted = useScriptedPi();
  const saved = { TMUX: process.env['TMUX'], TMUX_PANE: process.env['TMUX_PANE'] };
  const gone = mkdtempSync(join(tmpdir(), 'wf-no-tmux-'));

  beforeAll(() => {
    mkdirSync(join(scripted.pi.agentDir, 'pi-extensible-workflows'), { recursive: true });
    writeFileSync(join(scripted.pi.agentDir, 'pi-extensible-workflows', 'settings.json'), JSON.stringify({ extensionSettings: { 'tmux-panes': { agents: 'all' } } }));
  });
  afterAll(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(gone, { recursive: true, force: true });
  });

  for (const [name, tmux] of [
    ['without TMUX', undefined],
    ['with TMUX naming a server that does not answer', `${join(gone, 'socket')},1,0`],
  ] as const) {
    it(`runs agents in process ${name}`, async () => {
      if (tmux === undefined) delete process.env['TMUX'];
      else process.env['TMUX'] = tmux;
      delete process.env['TMUX_PANE'];
      const session = name.startsWith('without') ? 'plain' : 'unreachable';
      scripted.model.main(({ toolResults }) =>
        toolResults.length === 0
          ? { toolCalls: [{ name: 'workflow', arguments: { name: 'solo', script: "return await agent('Solo task', { label: 'solo' });", foreground: true } }] }
          : { text: 'done' },
      );
      const { stdout, stderr } = await runPi(scripted.pi, ['--mode', 'json', '--approve', '--session-id', session, 'Run solo']);
      expect(stderr).not.toMatch(/tmux/i);
      const launch = toolExecution(stdout, 'workflow');
      expect(JSON.parse(launch.text)).toMatchObject({ state: 'completed' });
      const runId = RUN_ID.exec(launch.text)?.[0] ?? '';
      const runDir = scripted.pi.runDir(session, runId);
      expect(scripted.pi.readJson(join(runDir, 'result.json'))).toBe('Solo task: done');
      const snapshot = scripted.pi.readJson(join(runDir, 'snapshot.json')) as { agentSessions: Record<string, Record<string, string>[]> };
      expect(Object.values(snapshot.agentSessions).flat()).toEqual([expect.objectContaining({ transport: 'pi' })]);
    });
  }
});
