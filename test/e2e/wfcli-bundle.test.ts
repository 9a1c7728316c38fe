/**
 * `wfcli bundle` through the real CLI and Pi (docs/bundles.md): a fixture
 * extension with a real third-party dependency (pathe, declared) and a
 * helper module with an unused export is bundled by rollup; the bundle is
 * copied to a fresh HOME outside the repository where only this package is
 * installed, set up (a missing environment variable named first) and run
 * through its launcher against the loopback scripted model. An undeclared
 * import fails before anything is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { addLocalPackage, createPiHome, piEnv, REPO_ROOT, runWfcli, type PiHome } from './support/pi-cli.js';
import { MODEL_ID, startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const FIXTURE = join(REPO_ROOT, 'test', 'e2e', 'fixtures', 'bundle-extension');
const UNDECLARED = `import { registerWorkflowExtension } from 'pi-extensible-workflows';
import { basename } from 'pathe';
export default function () {
  registerWorkflowExtension({
    version: '1.0.0', headline: 'Undeclared', source: import.meta.url,
    functions: { undeclaredFn: { description: 'Imports pathe without declaring it.', input: { type: 'object' }, output: {}, run: () => basename('/a/b') } },
  });
}
`;

const UNSOURCED = `import { registerWorkflowExtension } from 'pi-extensible-workflows';
export default function () {
  registerWorkflowExtension({ version: '1.0.0', headline: 'Unsourced', functions: { anonFn: { description: 'No source.', input: { type: 'object' }, output: {}, run: () => 1 } } });
}
`;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function launch(file: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(file, [...args], { cwd, env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('wfcli bundle', () => {
  let model: ScriptedModel;
  let author: PiHome;
  let user: PiHome;
  let app: string;

  beforeAll(async () => {
    model = await startScriptedModel();
    author = createPiHome(model);
    user = createPiHome(model);
    // The author's machine: the package and the dependency beside the extension, as npm installs them.
    mkdirSync(join(author.home, 'node_modules'));
    symlinkSync(REPO_ROOT, join(author.home, 'node_modules', 'pi-extensible-workflows'));
    symlinkSync(join(REPO_ROOT, 'node_modules', 'pathe'), join(author.home, 'node_modules', 'pathe'));
    const extension = join(author.home, 'bundle-extension');
    cpSync(FIXTURE, extension, { recursive: true });
    addLocalPackage(author, extension);
    const example = join(author.home, 'example-extension');
    cpSync(join(REPO_ROOT, 'examples', 'extension'), example, { recursive: true });
    addLocalPackage(author, example);
    // Another machine: a fresh HOME outside the repository with only this package installed.
    app = join(user.home, 'app');
    mkdirSync(join(app, 'node_modules'), { recursive: true });
    symlinkSync(REPO_ROOT, join(app, 'node_modules', 'pi-extensible-workflows'));
  });
  afterAll(async () => {
    author.close();
    user.close();
    await model.close();
  });

  it('bundles a workflow with its declared dependency inlined and unused exports shaken off; the moved bundle sets up and runs', async () => {
    const bundled = await runWfcli(author, ['bundle', 'bundledBrief', '--name', 'brief-bundle', '--output', 'dist-bundle']);
    expect(bundled.code, bundled.stderr).toBe(0);
    const dir = join(author.cwd, 'dist-bundle');
    expect(bundled.stdout).toBe(`${dir}\n`);
    const sizes = /payload (\d+) bytes, from a module graph of (\d+) files, (\d+) bytes/.exec(bundled.stderr);
    expect(sizes, bundled.stderr).not.toBeNull();
    const [payloadBytes, graphFiles, graphBytes] = [Number(sizes?.[1]), Number(sizes?.[2]), Number(sizes?.[3])];
    // index.js, lib.js and pathe's two files.
    expect(graphFiles).toBe(4);
    expect(payloadBytes).toBeLessThan(graphBytes);
    console.log(`BENCH bundle_payload_bytes ${payloadBytes} bytes (module graph ${graphBytes} bytes in ${graphFiles} files)`);

    const payload = readFileSync(join(dir, 'payload', 'extension.mjs'), 'utf8');
    const imports = [...payload.matchAll(/^import .* from '([^']+)';$/gm)].map((match) => match[1]);
    expect(imports).toEqual(['pi-extensible-workflows']);
    expect(payload).toContain('const join = function');
    expect(payload).not.toMatch(/UNUSED_LIB_EXPORT|UNUSED_ENTRY_EXPORT|unusedEntryExport|toNamespacedPath|const relative/);
    expect(payload).toMatch(/^export \{ \w+ as default \};$/m);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      version: 2,
      command: 'brief-bundle',
      workflow: 'bundledBrief',
      source: { module: expect.stringMatching(/^file:.*bundle-extension\/index\.js$/) as unknown, export: 'default' },
      bundler: { name: 'rollup', version: expect.stringMatching(/^4\./) as unknown },
      dependencies: ['pathe'],
      payload: { path: 'payload/extension.mjs', bytes: payloadBytes },
      aliases: ['writer'],
      tools: [],
      commands: [],
      environment: ['BRIEF_TONE'],
    });
    expect(statSync(join(dir, 'brief-bundle')).mode & 0o777).toBe(0o755);
    // Nothing of the author's Pi: no credentials, settings or engine.
    expect(readdirSync(dir).sort()).toEqual(['brief-bundle', 'launcher.mjs', 'manifest.json', 'payload']);
    const everything = ['brief-bundle', 'launcher.mjs', 'manifest.json', 'payload/extension.mjs'].map((file) => readFileSync(join(dir, file), 'utf8')).join('\n');
    for (const secret of [model.provider.apiKey, model.provider.baseUrl, author.agentDir]) expect(everything).not.toContain(secret);
    expect(everything).not.toMatch(/registerWorkflowExtension\s*\(\s*extension\s*\)\s*\{|class WorkflowRegistry/);

    cpSync(dir, join(app, 'brief-bundle'), { recursive: true });
    const launcher = join(app, 'brief-bundle', 'brief-bundle');
    const env = piEnv(user);
    delete env['BRIEF_TONE'];

    const early = await launch(launcher, ['--', '--topic', 'x'], user.cwd, env);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/^CONFIG_ERROR: The bundle "brief-bundle" is not set up on this machine: run ".*brief-bundle setup" first$/m);
    const missing = await launch(launcher, ['setup'], user.cwd, env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /^CONFIG_ERROR: The bundle "brief-bundle" cannot run here; missing: model alias "writer" \(not configured here: add it to modelAliases of the workflow settings\); environment variable "BRIEF_TONE" \(not set\)$/m,
    );
    mkdirSync(join(user.agentDir, 'pi-extensible-workflows'));
    writeFileSync(join(user.agentDir, 'pi-extensible-workflows', 'settings.json'), JSON.stringify({ modelAliases: { writer: `e2e/${MODEL_ID}:low` } }));
    const toned = { ...env, BRIEF_TONE: 'crisp' };
    const setup = await launch(launcher, ['setup'], user.cwd, toned);
    expect(setup.code, setup.stderr).toBe(0);
    expect(setup.stdout).toMatch(/^ready: brief-bundle runs "bundledBrief" with Pi \S+ and engine \S+$/m);
    expect(JSON.parse(readFileSync(join(app, 'brief-bundle', 'state.json'), 'utf8'))).toMatchObject({ version: 1, workflow: 'bundledBrief', payloadSha256: manifest['payload'] && (manifest['payload'] as { sha256: string }).sha256 });

    const ran = await launch(launcher, ['--', '--topic', 'bundles'], user.cwd, toned);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toMatch(/^run wf-/m);
    expect(JSON.parse(ran.stdout)).toEqual({ file: 'out/bundles.md', brief: 'Write a crisp brief about bundles.: done' });
    expect(model.agentRequests('Write a crisp brief about bundles.')).toBe(1);

    // Spec 2 rule 9: with an extension failing to load, the payload (registered before extensions load) is a proven source.
    mkdirSync(join(user.agentDir, 'extensions'), { recursive: true });
    writeFileSync(join(user.agentDir, 'extensions', 'broken.js'), "export default function () { throw new Error('broken on purpose'); }\n");
    const proven = await launch(launcher, ['--', '--topic', 'failures'], user.cwd, toned);
    rmSync(join(user.agentDir, 'extensions', 'broken.js'));
    expect(proven.code, proven.stderr).toBe(0);
    expect(proven.stderr).toMatch(/^warning: Failed to load extension .*broken\.js.*broken on purpose/m);
    expect(JSON.parse(proven.stdout)).toEqual({ file: 'out/failures.md', brief: 'Write a crisp brief about failures.: done' });

    // A changed payload is refused before anything runs.
    writeFileSync(join(app, 'brief-bundle', 'payload', 'extension.mjs'), `${payload}\n// tampered\n`);
    const tampered = await launch(launcher, ['--', '--topic', 'again'], user.cwd, toned);
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toMatch(/^CONFIG_ERROR: The bundle changed since setup|^CONFIG_ERROR: The bundle's payload .* is not the one its manifest records/m);
  });

  it('refuses an undeclared import before writing anything, and an existing output without --force', async () => {
    mkdirSync(join(author.agentDir, 'extensions'), { recursive: true });
    writeFileSync(join(author.agentDir, 'extensions', 'undeclared.js'), UNDECLARED);
    const refused = await runWfcli(author, ['bundle', 'undeclaredFn', '--output', 'out/undeclared']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^INVALID_METADATA: Cannot bundle .*undeclared\.js: undeclared packages "pathe" \(imported by undeclared\.js\): add them to the registration's `dependencies`/m);
    expect(existsSync(join(author.cwd, 'out'))).toBe(false);
    writeFileSync(join(author.agentDir, 'extensions', 'unsourced.js'), UNSOURCED);
    const unsourced = await runWfcli(author, ['bundle', 'anonFn']);
    expect(unsourced.code).toBe(1);
    expect(unsourced.stderr).toMatch(/^INVALID_METADATA: The workflow "anonFn" cannot be bundled: its registration \("Unsourced"\) declares no `source`; add `source: import.meta.url` to registerWorkflowExtension$/m);
    expect(existsSync(join(author.cwd, 'anonFn'))).toBe(false);
    const unknown = await runWfcli(author, ['bundle', 'nothing']);
    expect(unknown.stderr).toMatch(/^MISSING_WORKFLOW: No workflow function named "nothing" is registered here/m);

    mkdirSync(join(author.cwd, 'taken'));
    writeFileSync(join(author.cwd, 'taken', 'mine'), 'x');
    const exists = await runWfcli(author, ['bundle', 'bundledBrief', '--output', 'taken']);
    expect(exists.code).toBe(1);
    expect(exists.stderr).toMatch(/^INVALID_METADATA: .*taken exists; pass --force to replace it$/m);
    expect(readdirSync(join(author.cwd, 'taken'))).toEqual(['mine']);
    const forced = await runWfcli(author, ['bundle', 'bundledBrief', '--output', 'taken', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readdirSync(join(author.cwd, 'taken')).sort()).toEqual(['bundledBrief', 'launcher.mjs', 'manifest.json', 'payload']);
    expect(readdirSync(author.cwd).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('bundles reviewLoop, a function of the core package itself: the core package stays external, and the bundle sets up elsewhere', async () => {
    const bundled = await runWfcli(author, ['bundle', 'reviewLoop', '--output', 'review-bundle']);
    expect(bundled.code, bundled.stderr).toBe(0);
    expect(bundled.stderr).toMatch(/^bundled reviewLoop: payload \d+ bytes, importing pi-extensible-workflows\/starter from the installed engine \(the core package stays external\)/m);
    const dir = join(author.cwd, 'review-bundle');
    expect(readFileSync(join(dir, 'payload', 'extension.mjs'), 'utf8')).toMatch(/^export \{ default \} from 'pi-extensible-workflows\/starter';$/m);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ command: 'reviewLoop', workflow: 'reviewLoop', dependencies: [], source: { module: expect.stringMatching(/\/dist\/starter\/library\.js$/) as unknown } });
    cpSync(dir, join(app, 'review-bundle'), { recursive: true });
    const setup = await launch(join(app, 'review-bundle', 'reviewLoop'), ['setup'], user.cwd, piEnv(user));
    expect(setup.code, setup.stderr).toBe(0);
    expect(setup.stdout).toMatch(/^ready: reviewLoop runs "reviewLoop" with Pi \S+ and engine \S+$/m);
  });

  it("bundles the example extension's brief, which runs elsewhere after setup", async () => {
    const bundled = await runWfcli(author, ['bundle', 'brief', '--output', 'brief']);
    expect(bundled.code, bundled.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(author.cwd, 'brief', 'manifest.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ command: 'brief', workflow: 'brief', dependencies: [], aliases: [], tools: [], commands: [], environment: [] });
    cpSync(join(author.cwd, 'brief'), join(app, 'brief'), { recursive: true });
    const launcher = join(app, 'brief', 'brief');
    const setup = await launch(launcher, ['setup'], user.cwd, piEnv(user));
    expect(setup.code, setup.stderr).toBe(0);
    const ran = await launch(launcher, ['--json', '--', '--topic', 'portable bundles', '--max-words', '30'], user.cwd, piEnv(user));
    expect(ran.code, ran.stderr).toBe(0);
    const prompt = 'Write a brief of at most 30 words about portable bundles for engineers.';
    expect(JSON.parse(ran.stdout)).toMatchObject({ state: 'completed', value: { topic: 'portable bundles', audience: 'engineers', brief: `${prompt}: done` } });
    expect(model.agentRequests(prompt)).toBe(1);
  });
});
