/**
 * `agent(prompt, { isolation: "worktree" })` through the real `wfcli run
 * --script` (a headless Pi session, real Pi agents on the loopback model):
 * each such agent's own `bash` tool works in a fresh git worktree of its own,
 * never in the caller's checkout, without a warning. Killed with SIGKILL
 * while the second agent runs, `wfcli resume` finishes the run in the same
 * worktrees: nothing is created twice and the completed agent does not run
 * again. A literal isolation other than "worktree" is refused before a run
 * exists.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, initRepo, worktreeList } from '../plugins/worktrees/git-fixture.js';
import { createPiHome, runWfcli, startWfcli, type PiHome, type PiResult } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const RUN_ID = /^run (wf-[0-9a-z]{9}-[0-9a-f]{8})$/m;
const FIRST = 'ISO first: change a file';
const SECOND = 'ISO second: change a file';

const SCRIPT = `const first = await agent('${FIRST}', { isolation: 'worktree' });
const second = await agent('${SECOND}', { isolation: 'worktree' });
return [first, second];
`;

function runIdOf(result: PiResult): string {
  const id = RUN_ID.exec(result.stderr)?.[1];
  if (id === undefined) throw new Error(`no run ID on stderr:\n${result.stderr}`);
  return id;
}

describe('wfcli run --script with isolation: "worktree"', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  let cwd: string;
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    initRepo(pi.cwd);
    // As git and `pwd` name it.
    cwd = realpathSync(pi.cwd);
    // Each attempt appends where its bash runs to where-<n>.txt, then submits. The second agent's first attempt never gets to submit.
    for (const [prompt, file] of [[FIRST, 'where-first.txt'], [SECOND, 'where-second.txt']] as const) {
      model.agent(prompt, ({ request }) => {
        if (request % 2 === 1) return { toolCalls: [{ name: 'bash', arguments: { command: `pwd >> ${file}` } }] };
        if (prompt === SECOND && request === 2) return new Promise<never>(() => undefined);
        return { toolCalls: [{ name: 'workflow_result', arguments: { result: `${prompt.slice(4, prompt.indexOf(':'))}: done` } }] };
      });
    }
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  const runDir = (runId: string): string => {
    const projects = join(pi.home, '.pi', 'workflows', 'projects');
    for (const project of readdirSync(projects)) {
      for (const session of readdirSync(join(projects, project, 'sessions'))) {
        const dir = join(projects, project, 'sessions', session, 'runs', runId);
        if (existsSync(dir)) return dir;
      }
    }
    throw new Error(`no run directory for ${runId}`);
  };

  it("runs each agent in a worktree of its own, never the caller's checkout; a resume after SIGKILL reuses them", async () => {
    writeFileSync(join(pi.cwd, 'iso.js'), SCRIPT);
    const run = startWfcli(pi, ['run', '--script', 'iso.js']);
    await model.waitForAgentRequest(SECOND, 2);
    const killed = await run.kill();
    expect(killed.signal).toBe('SIGKILL');
    const runId = runIdOf(killed);
    expect(killed.stderr).not.toContain('warning:');

    const resumed = await runWfcli(pi, ['resume', runId]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toEqual(['first: done', 'second: done']);
    // The first agent completed before the kill: not run again. The second ran again from its start.
    expect(model.agentRequests(FIRST)).toBe(2);
    expect(model.agentRequests(SECOND)).toBe(4);

    const dir = runDir(runId);
    const snapshot = JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8')) as { plugins: { worktrees: { scopes: Record<string, { path: string; branch: string }> } } };
    const { scopes } = snapshot.plugins.worktrees;
    expect(Object.keys(scopes)).toEqual(['withWorktree:agent-1-21-0', 'withWorktree:agent-2-22-0']);
    const first = scopes['withWorktree:agent-1-21-0']!;
    const second = scopes['withWorktree:agent-2-22-0']!;
    expect(first.branch).toBe(`pi-workflow/${runId}/agent-1-21-0`);
    // Each bash ran in its agent's worktree: once for the first, twice (killed, then resumed) in the same one for the second.
    expect(readFileSync(join(first.path, 'where-first.txt'), 'utf8')).toBe(`${first.path}\n`);
    expect(readFileSync(join(second.path, 'where-second.txt'), 'utf8')).toBe(`${second.path}\n${second.path}\n`);
    expect(git(second.path, 'status', '--porcelain')).toBe('?? where-second.txt');
    // Nothing in the caller's checkout but the script; no third worktree, one creation each.
    expect(git(cwd, 'status', '--porcelain')).toBe('?? iso.js');
    expect(worktreeList(cwd)).toEqual([cwd, first.path, second.path]);
    const created = readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n').filter((line) => line.includes('"type":"worktree-created"'));
    expect(created).toHaveLength(2);
  });

  it('refuses a literal isolation other than "worktree" before any run exists, naming the call and the form to write', async () => {
    writeFileSync(join(pi.cwd, 'sandbox.js'), "return await agent('ISO never', { isolation: 'sandbox' });\n");
    const refused = await runWfcli(pi, ['run', '--script', 'sandbox.js']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^INVALID_METADATA: Agent option "isolation" \(at 1:14\) is "sandbox"; the one isolation this runtime knows is isolation: "worktree"/m);
    expect(refused.stderr).not.toMatch(RUN_ID);
    expect(model.agentRequests('ISO never')).toBe(0);
  });
});
