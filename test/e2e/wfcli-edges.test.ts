/**
 * The rough edges of `wfcli` that issue 29 found, through the built CLI and
 * real headless Pi sessions on the loopback model: `export` into a missing
 * folder or onto a directory, a closed stdout, a transcript that is not a
 * session file, Pi's own startup warnings, `--version` and the progress log
 * without a terminal, a retry of an already retried run, `stop` of a run
 * another `wfcli` executes, and the agent states a halted or completed run
 * lists.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPiHome, piEnv, REPO_ROOT, runWfcli, startWfcli, WFCLI, type PiHome, type PiResult } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const RUN_ID = /^run (wf-[0-9a-z]{9}-[0-9a-f]{8})$/m;

function runIdOf(result: Pick<PiResult, 'stderr'>): string {
  const id = RUN_ID.exec(result.stderr)?.[1];
  if (id === undefined) throw new Error(`no run ID on stderr:\n${result.stderr}`);
  return id;
}

interface Status {
  readonly state: string;
  readonly agents: readonly { readonly label: string; readonly state: string; readonly attempts: number }[];
}

describe('wfcli edges', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    mkdirSync(join(pi.agentDir, 'extensions'), { recursive: true });
    // A registered function to export, from an extension Pi loads here.
    writeFileSync(
      join(pi.agentDir, 'extensions', 'exported.js'),
      `import { registerWorkflowExtension } from ${JSON.stringify(join(REPO_ROOT, 'dist', 'src', 'library.js'))};
export default function () {
  registerWorkflowExtension({ version: '1.0.0', headline: 'Exported', functions: { exported: { description: 'Returns 1.', input: { type: 'object' }, output: {}, run: () => 1 } } });
}
`,
    );
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  const script = (name: string, source: string): string => {
    writeFileSync(join(pi.cwd, name), source);
    return name;
  };
  /** The run as `wfcli list --json` shows it (no Pi session starts for it). */
  const status = async (runId: string): Promise<Status> => {
    const result = await runWfcli(pi, ['list', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const run = (JSON.parse(result.stdout) as (Status & { runId: string })[]).find((entry) => entry.runId === runId);
    if (run === undefined) throw new Error(`run ${runId} is not listed:\n${result.stdout}`);
    return run;
  };

  it('export creates missing parent folders; a directory in the way is a typed error, with or without --force', async () => {
    const made = await runWfcli(pi, ['export', 'exported', '--output', 'bin/nested/x']);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toBe(`${join(pi.cwd, 'bin', 'nested', 'x')}\n`);
    expect(readFileSync(join(pi.cwd, 'bin', 'nested', 'x'), 'utf8')).toContain('run \'exported\' "$@"');
    mkdirSync(join(pi.cwd, 'taken'));
    for (const extra of [[], ['--force']]) {
      const refused = await runWfcli(pi, ['export', 'exported', '--output', 'taken', ...extra]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(`INVALID_METADATA: ${join(pi.cwd, 'taken')} is a directory; give --output the launcher's file path (for example ${join(pi.cwd, 'taken', 'taken')})\n`);
    }
  });

  it('a closed stdout ends list, list --json and inspect quietly', async () => {
    const ran = await runWfcli(pi, ['run', '--script', script('one.js', 'return 1;')]);
    expect(ran.code, ran.stderr).toBe(0);
    for (const args of [['list'], ['list', '--json'], ['inspect'], ['inspect', '--json']]) {
      // The reader is gone before wfcli writes: every write meets a closed pipe (EPIPE).
      const child = spawn(process.execPath, [WFCLI, ...args], { cwd: pi.cwd, env: piEnv(pi), stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (data: string) => (stderr += data));
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      expect({ args, code, stderr }).toEqual({ args, code: 0, stderr: '' });
    }
  });

  it('transcript of a file whose first line is not JSON says it is not a session file', async () => {
    writeFileSync(join(pi.cwd, 'notes.jsonl'), 'hello there\n{"type":"session"}\n');
    const result = await runWfcli(pi, ['transcript', 'notes.jsonl']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^INVALID_METADATA: .*notes\.jsonl is not a Pi session file: its first line is not JSON \(/);
    expect(result.stderr).not.toContain('is empty');
  });

  it("prints Pi's own startup warnings: a malformed settings.json in run, and PI_STARTUP_WARNING in doctor --json", async () => {
    const settings = join(pi.agentDir, 'settings.json');
    const saved = readFileSync(settings, 'utf8');
    writeFileSync(settings, '{ "defaultProvider": ');
    try {
      const ran = await runWfcli(pi, ['run', '--script', script('plain.js', 'return 2;')]);
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stderr).toMatch(new RegExp(`^warning: Invalid settings file ${settings.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: `, 'm'));
      const doctor = await runWfcli(pi, ['doctor', '--json']);
      const report = JSON.parse(doctor.stdout) as { diagnostics: { code: string; severity: string; message: string }[] };
      expect(report.diagnostics).toContainEqual(expect.objectContaining({ code: 'PI_STARTUP_WARNING', severity: 'warning', message: expect.stringContaining(`Invalid settings file ${settings}`) as unknown }));
    } finally {
      writeFileSync(settings, saved);
    }
  });

  it('--version prints the package version; without a terminal stderr gets one line per phase, agent start and end, and run state change', async () => {
    const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    for (const flag of ['--version', '-v']) expect(await runWfcli(pi, [flag])).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    const ran = await runWfcli(pi, ['run', '--script', script('logged.js', "phase('plan');\nconst a = await agent('Logged agent', { label: 'planner' });\nphase('ship');\nreturn a;")]);
    expect(ran.code, ran.stderr).toBe(0);
    const lines = ran.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(RUN_ID);
    expect(lines.slice(1).map((line) => line.replace(/^\[\+\d+\.\ds\] /, ''))).toEqual(['phase plan', 'agent planner running', 'agent planner completed', 'phase ship', 'run completed']);
    for (const line of lines.slice(1)) expect(line).toMatch(/^\[\+\d+\.\ds\] /);
  });

  let source = '';
  let childId = '';
  it('retries a failed run once: its child completes', async () => {
    // The first attempt answers without a result (the run fails); later ones submit it.
    model.agent('Retried once', ({ request }) => (request === 1 ? { text: 'no result' } : { toolCalls: [{ name: 'workflow_result', arguments: { result: `try ${request}` } }] }));
    const failed = await runWfcli(pi, ['run', '--script', script('retried.js', "return await agent('Retried once');")]);
    expect(failed.code).toBe(1);
    source = runIdOf(failed);
    const child = await runWfcli(pi, ['retry', source]);
    expect(child.code, child.stderr).toBe(0);
    childId = runIdOf(child);
  });

  it('refuses to retry a run whose retry completed, naming the child, unless --force', async () => {
    const refused = await runWfcli(pi, ['retry', source]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`^RESUME_INCOMPATIBLE: Run ${source} was already retried: its retry ${childId} completed`, 'm'));
    expect(model.agentRequests('Retried once')).toBe(2);
    const forced = await runWfcli(pi, ['retry', source, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(runIdOf(forced)).not.toBe(childId);
    expect(JSON.parse(forced.stdout)).toBe('try 3');
  });

  it('stops a run another wfcli executes: that process stops it and ends', async () => {
    model.holdNext('Held elsewhere');
    const owner = startWfcli(pi, ['run', '--script', script('held.js', "return await agent('Held elsewhere', { label: 'held' });")]);
    await model.waitForAgentRequest('Held elsewhere', 1);
    // The agent asked the model: the run exists and is running.
    const listed = await runWfcli(pi, ['list', '--json']);
    const runId = (JSON.parse(listed.stdout) as { runId: string; workflow: { name: string }; state: string }[]).find((entry) => entry.workflow.name === 'held')?.runId ?? '';
    const stopped = await runWfcli(pi, ['stop', runId]);
    expect(stopped).toMatchObject({ code: 0, stdout: `stopped ${runId}\n` });
    const ended = await owner.exited;
    expect(ended.code).toBe(1);
    expect(ended.stderr).toMatch(new RegExp(`^stopped: run ${runId} ended stopped`, 'm'));
    const stored = await status(runId);
    expect(stored.state).toBe('stopped');
    expect(stored.agents).toEqual([expect.objectContaining({ label: 'held', state: 'cancelled' })]);
  });

  it('a hard launch limit leaves the blocked agent not started, with 0 attempts', async () => {
    const halted = await runWfcli(pi, ['run', '--script', script('limited.js', "return [await agent('Limit one', { label: 'one' }), await agent('Limit two', { label: 'two' })];"), '--budget', '{"agentLaunches":{"hard":1}}']);
    expect(halted.code).toBe(1);
    expect(halted.stderr).toMatch(/^BUDGET_EXHAUSTED: /m);
    const limited = await status(runIdOf(halted));
    expect(limited.state).toBe('budget_exhausted');
    expect(limited.agents.map(({ label, state, attempts }) => ({ label, state, attempts }))).toEqual([
      { label: 'one', state: 'completed', attempts: 1 },
      { label: 'two', state: 'queued', attempts: 0 },
    ]);
  });

  it('a never-awaited agent of a completed run is cancelled', async () => {
    model.holdNext('Never awaited');
    const gate = join(pi.cwd, 'dangling.go');
    const dangling = startWfcli(pi, ['run', '--script', script('dangling.js', `const pending = agent('Never awaited', { label: 'dangling' });\nawait shell('while [ ! -f ${gate} ]; do sleep 0.05; done');\nreturn 'done';`)]);
    await model.waitForAgentRequest('Never awaited', 1);
    writeFileSync(gate, '');
    const done = await dangling.exited;
    expect(done.code, done.stderr).toBe(0);
    const completed = await status(runIdOf(done));
    expect(completed.state).toBe('completed');
    expect(completed.agents).toEqual([expect.objectContaining({ label: 'dangling', state: 'cancelled' })]);
  });
});
