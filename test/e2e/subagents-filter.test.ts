/**
 * Spec 2 "Optional entries and package filters", through the real `pi` CLI:
 * a package filter excluding `dist/subagents/index.js` removes exactly the
 * five `subagents_*` tools (the rest of what Pi offers the model is the same)
 * and `/subagents`, while workflows keep their agents and the nested `agent`
 * and `get_subagent_result` tools.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPiHome, installPackage, runPi, type PiHome } from './support/pi-cli.js';
import { toolExecution } from './support/pi-events.js';
import { startScriptedModel, type MainTurn, type ScriptedModel } from './support/scripted-model.js';

const SUBAGENT_TOOLS = ['subagents_inspect', 'subagents_retry', 'subagents_run', 'subagents_steer', 'subagents_stop'];

interface Settings {
  packages?: (string | { source: string; extensions?: string[] })[];
}

describe('a package filter without the subagents entry', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  let root: string;
  let turns: MainTurn[];
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    root = await installPackage(pi);
    turns = [];
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  const settingsFile = (): string => join(pi.agentDir, 'settings.json');
  /** Sets the installed package's `extensions` filter (none: no filter). */
  const filter = (extensions?: string[]): void => {
    const settings = JSON.parse(readFileSync(settingsFile(), 'utf8')) as Settings;
    settings.packages = (settings.packages ?? []).map((entry) => {
      const source = typeof entry === 'string' ? entry : entry.source;
      if (resolve(pi.agentDir, source) !== resolve(root)) return entry;
      return extensions === undefined ? source : { source, extensions };
    });
    writeFileSync(settingsFile(), JSON.stringify(settings, null, 2));
  };
  /** What the main model is offered, and sees as its prompt, in one print-mode run of `prompt`. */
  const ask = async (prompt: string): Promise<{ tools: readonly string[]; prompts: string[]; stdout: string }> => {
    turns.length = 0;
    model.main((turn) => {
      turns.push(turn);
      return { text: 'ok' };
    });
    const { stdout } = await runPi(pi, ['-p', '--approve', '--no-session', prompt]);
    return { tools: turns.at(-1)?.tools ?? [], prompts: turns.map((turn) => turn.prompt), stdout };
  };

  it('removes the five subagent tools and /subagents, and nothing else', async () => {
    filter();
    const loaded = await ask('Which tools do you have?');
    expect(loaded.tools).toEqual(expect.arrayContaining([...SUBAGENT_TOOLS, 'workflow', 'workflow_status']));
    const listing = await ask('/subagents');
    expect(listing.prompts).toEqual([]);
    expect(listing.stdout).toContain('Subagents of session');

    filter(['-dist/subagents/index.js']);
    const filtered = await ask('Which tools do you have?');
    expect([...loaded.tools].filter((name) => !filtered.tools.includes(name)).sort()).toEqual(SUBAGENT_TOOLS);
    expect(filtered.tools.filter((name) => !loaded.tools.includes(name))).toEqual([]);
    // Pi does not know the command any more: the text goes to the model as a prompt.
    const unknown = await ask('/subagents');
    expect(unknown.prompts).toEqual(['/subagents']);
    expect(unknown.stdout).not.toContain('Subagents of session');
  });

  it('workflows still run agents that get the nested agent and get_subagent_result tools', async () => {
    filter(['-dist/subagents/index.js']);
    model.main(({ toolResults }) =>
      toolResults.length === 0 ? { toolCalls: [{ name: 'workflow', arguments: { name: 'nested', script: "return await agent('Filtered nested check');", foreground: true } }] } : { text: 'done' },
    );
    const { stdout } = await runPi(pi, ['--mode', 'json', '--approve', '--session-id', 'filtered', 'Run the workflow']);
    const launch = toolExecution(stdout, 'workflow');
    expect(launch.isError, launch.text).toBe(false);
    expect(launch.details).toMatchObject({ state: 'completed', value: 'Filtered nested check: done' });
    expect(model.agentTools('Filtered nested check')).toEqual(expect.arrayContaining(['workflow_result', 'agent', 'get_subagent_result']));
    expect(model.agentTools('Filtered nested check')).not.toContain('subagents_run');
  });
});
