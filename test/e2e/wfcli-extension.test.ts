/**
 * Registered workflows from the shell: the example extension of
 * examples/extension, installed with `pi install`, runs by name with flat
 * workflow arguments; `wfcli export` writes a launcher that runs it; functions
 * that use checkpoints are refused headless; and spec 2 rule 9: with an
 * extension that fails to load, proven registrations still run, undeclared
 * agent options are refused, and an unproven registration stops the CLI
 * before anything runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { DoctorReport } from '../../cli/doctor-report.js';
import { addLocalPackage, createPiHome, piEnv, REPO_ROOT, runWfcli, type PiHome, type PiResult } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const RUN_ID = /^run wf-/m;
const BRIEF_PROMPT = (topic: string, words: number) => `Write a brief of at most ${words} words about ${topic} for engineers.`;

const CHECKPOINTER = `import { registerWorkflowExtension } from 'pi-extensible-workflows';
export default function () {
  registerWorkflowExtension({
    version: '1.0.0', headline: 'Checkpointer', source: import.meta.url,
    functions: {
      approveThing: {
        description: 'Asks a human first.', input: { type: 'object' }, output: {},
        async run(input, context) { return await context.checkpoint({ name: 'go', prompt: 'Go?', context: {} }); },
      },
      viaInvoke: {
        description: 'Invokes one that asks.', input: { type: 'object' }, output: {},
        async run(input, context) { return await context.invoke('approveThing', {}); },
      },
    },
  });
}
`;
const FLAVORED = `import { registerWorkflowExtension } from 'pi-extensible-workflows';
export default function () {
  registerWorkflowExtension({
    version: '1.0.0', headline: 'Flavored', source: import.meta.url,
    agentPreparationHooks: { flavor: { priority: 1, optionsSchema: { type: 'object', properties: { flavor: { type: 'string' } } }, prepare() {} } },
  });
}
`;
const UNSOURCED = `import { registerWorkflowExtension } from 'pi-extensible-workflows';
export default function () {
  registerWorkflowExtension({ version: '1.0.0', headline: 'Unsourced', functions: { anon: { description: 'No source.', input: { type: 'object' }, output: {}, run: () => 1 } } });
}
`;

describe('wfcli with registered workflows', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  const extensionsDir = (): string => join(pi.agentDir, 'extensions');
  const fixture = (name: string, source: string): void => writeFileSync(join(extensionsDir(), name), source);
  const json = (result: PiResult): unknown => {
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as unknown;
  };

  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    // What npm does for the example's peer dependency: the package beside it.
    mkdirSync(join(pi.home, 'node_modules'));
    symlinkSync(REPO_ROOT, join(pi.home, 'node_modules', 'pi-extensible-workflows'));
    const example = join(pi.home, 'example-extension');
    cpSync(join(REPO_ROOT, 'examples', 'extension'), example, { recursive: true });
    addLocalPackage(pi, example);
    mkdirSync(extensionsDir());
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  it('runs the example extension by name; flat arguments after "--" are typed by its input schema', async () => {
    const result = await runWfcli(pi, ['run', 'brief', '--', '--topic', 'durable workflows', '--max-words', '60']);
    expect(result.stderr).toMatch(RUN_ID);
    const prompt = BRIEF_PROMPT('durable workflows', 60);
    expect(json(result)).toEqual({ topic: 'durable workflows', audience: 'engineers', brief: `${prompt}: done` });
    expect(model.agentRequests(prompt)).toBe(1);

    const missing = await runWfcli(pi, ['run', 'nothing']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^MISSING_WORKFLOW: No workflow function named "nothing" is registered here \(registered: brief, reviewLoop\)$/m);
    const usage = await runWfcli(pi, ['run', 'brief', '--', 'topic']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^wfcli run: workflow arguments are --key value pairs; "topic" has no key$/m);
  });

  it('exports a launcher that runs the workflow, whole or not at all', async () => {
    mkdirSync(join(pi.cwd, 'bin'));
    const launcher = join(pi.cwd, 'bin', 'brief-cli');
    const exported = await runWfcli(pi, ['export', 'brief', '--name', 'brief-cli', '--output', 'bin/brief-cli']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toBe(`${launcher}\n`);
    expect(statSync(launcher).mode & 0o777).toBe(0o755);
    const ran = await promisify(execFile)(launcher, ['--', '--topic', 'launchers', '--max-words', '20'], { cwd: pi.cwd, env: piEnv(pi) });
    expect(JSON.parse(ran.stdout)).toMatchObject({ brief: `${BRIEF_PROMPT('launchers', 20)}: done` });

    const before = readFileSync(launcher, 'utf8');
    writeFileSync(launcher, 'mine');
    const refused = await runWfcli(pi, ['export', 'brief', '--output', 'bin/brief-cli']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^INVALID_METADATA: .*brief-cli exists; pass --force to replace it$/m);
    expect(readFileSync(launcher, 'utf8')).toBe('mine');
    const forced = await runWfcli(pi, ['export', 'brief', '--name', 'brief-cli', '--output', 'bin/brief-cli', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(launcher, 'utf8')).toBe(before);
  });

  it('refuses workflows with checkpoints headless: by name, through invoke, in a script, and for export', async () => {
    fixture('checkpointer.js', CHECKPOINTER);
    try {
      // viaInvoke only invokes approveThing: the search follows invoke (for run too, test/cli/checkpoints.test.ts).
      const refused = await runWfcli(pi, ['run', 'approveThing']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^INVALID_METADATA: Workflows containing checkpoints cannot run headless .*"approveThing" uses checkpoint/m);
      expect(refused.stderr).not.toMatch(RUN_ID);
      writeFileSync(join(pi.cwd, 'asks.js'), "return await checkpoint({ name: 'go', prompt: 'Go?', context: {} });");
      const script = await runWfcli(pi, ['run', '--script', 'asks.js']);
      expect(script.stderr).toMatch(/^INVALID_METADATA: .*the script calls checkpoint/m);
      const exported = await runWfcli(pi, ['export', 'viaInvoke']);
      expect(exported.code).toBe(1);
      expect(exported.stderr).toMatch(/^INVALID_METADATA: Workflows containing checkpoints cannot run headless or through exported launchers .*"approveThing" uses checkpoint/m);
    } finally {
      rmSync(join(extensionsDir(), 'checkpointer.js'));
    }
  });

  it('with an extension that fails to load: proven registrations run, undeclared agent options are refused, an unproven registration stops everything', async () => {
    fixture('broken.js', "export default function () { throw new Error('broken on purpose'); }\n");
    fixture('flavored.js', FLAVORED);
    const brief = await runWfcli(pi, ['run', 'brief', '--', '--topic', 'failures', '--max-words', '10']);
    expect(brief.stderr).toMatch(/^warning: Failed to load extension .*broken\.js.*broken on purpose/m);
    expect(json(brief)).toMatchObject({ brief: `${BRIEF_PROMPT('failures', 10)}: done` });

    // flavor: a proven extension's hook declares it; role: the roles plugin of a loaded entry declares it.
    writeFileSync(join(pi.cwd, 'options.js'), "return await agent('Flavored agent', { flavor: 'sweet', role: 'scout' });");
    expect(json(await runWfcli(pi, ['run', '--script', 'options.js']))).toBe('Flavored agent: done');
    writeFileSync(join(pi.cwd, 'unowned.js'), "return await agent('Unowned agent', { color: 'red' });");
    const unowned = await runWfcli(pi, ['run', '--script', 'unowned.js']);
    expect(unowned.code).toBe(1);
    expect(unowned.stderr).toMatch(/^INVALID_METADATA: Agent option "color" is not declared by a preparation hook of a loaded extension/m);
    expect(model.agentRequests('Unowned agent')).toBe(0);

    fixture('unsourced.js', UNSOURCED);
    const stopped = await runWfcli(pi, ['run', 'brief', '--', '--topic', 'never']);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toMatch(/^CONFIG_ERROR: Extensions failed to load \(.*broken on purpose.*\), and these workflow registrations cannot be proven .*"Unsourced" \(no source\)/m);
    expect(stopped.stderr).not.toMatch(RUN_ID);
    const doctor = await runWfcli(pi, ['doctor', '--json']);
    expect(doctor.code).toBe(1);
    expect((JSON.parse(doctor.stdout) as DoctorReport).diagnostics).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'REGISTRATION_UNPROVEN', severity: 'error' }), expect.objectContaining({ code: 'EXTENSION_LOAD_FAILED', severity: 'warning' })]),
    );
  });
});
