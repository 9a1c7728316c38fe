/**
 * What the built `wfcli` loads (docs/wfcli.md "What starts when"): the
 * commands that read stored runs import no Pi SDK, no rollup, no ses, no
 * tapable (the kernel's hooks: the engine) and start no process, nor
 * ajv's compiler (every validator they use is compiled at build time),
 * and `list` and `status` not node:crypto; none imports node:fs as an ES module.
 * `wfcli view` serves a run's list, page and model the same way, and ends
 * cleanly on SIGTERM.
 * `wfcli run` loads Pi's SDK from Pi's bundle only, and no jiti when only this
 * package's entries load (cli/extension-loader.ts), and keeps Node's compile
 * cache and the sandbox's code cache in the store, never through a link, and loads nothing of remote
 * agents (their entry loads only when a settings file names them), nor
 * micromatch or nano-spawn when the script evaluates no selector and makes no
 * worktree. A resolve hook registered before the entry records every module
 * the process resolves; the runs read are real ones, stored by the engine.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowEngine, createKernel, workflowsRoot } from '../../kernel/index.js';

const WFCLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'wfcli.js');

/** Registered with --import: appends each resolved URL, and each loaded one as "load <url>", to $WFCLI_LOADED at exit. */
const HOOK = `import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
const seen = [];
registerHooks({
  resolve(specifier, context, next) { const result = next(specifier, context); seen.push(result.url); return result; },
  load(url, context, next) { seen.push('load ' + url); return next(url, context); },
});
process.on('exit', () => appendFileSync(process.env.WFCLI_LOADED, seen.join('\\n') + '\\n'));
`;

/** Module URLs no run-reading command may load. */
const FORBIDDEN = [/@earendil-works\//, /\/node_modules\/rollup\//, /\/node_modules\/ses\//, /\/node_modules\/tapable\//, /^node:child_process$/, /^node:worker_threads$/];
const AJV_COMPILER = /\/node_modules\/ajv\/dist\/(ajv|core|compile\/)/;

let dir: string;
let home: string;
let cwd: string;
let runId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wfcli-startup-'));
  home = join(dir, 'home');
  cwd = join(dir, 'project');
  mkdirSync(join(home, 'agent'), { recursive: true });
  mkdirSync(cwd);
  writeFileSync(join(dir, 'hook.mjs'), HOOK);
  const engine = new WorkflowEngine({ kernel: createKernel({ plugins: [] }), sessionId: 'startup-test', root: workflowsRoot(home), agentDir: join(home, 'agent'), home });
  try {
    const handle = await engine.launch({ name: 'stored', cwd, script: "log('stored');\nreturn 1;\n", args: null, foreground: true });
    expect((await handle.outcome).state).toBe('completed');
    runId = handle.runId;
  } finally {
    await engine.close();
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function loadedBy(args: readonly string[], userHome = home): { status: number | null; stdout: string; stderr: string; loaded: string[] } {
  const record = join(dir, `loaded-${args.join('-').replace(/[^a-z0-9-]/gi, '_')}.txt`);
  writeFileSync(record, '');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: userHome, PI_CODING_AGENT_DIR: join(userHome, 'agent'), PI_OFFLINE: '1', WFCLI_LOADED: record };
  delete env['NODE_COMPILE_CACHE'];
  delete env['NODE_DISABLE_COMPILE_CACHE'];
  const result = spawnSync(process.execPath, ['--import', pathToFileURL(join(dir, 'hook.mjs')).href, WFCLI, ...args], { cwd, env, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, loaded: readFileSync(record, 'utf8').split('\n').filter(Boolean) };
}

describe('wfcli commands that read stored runs load no Pi, engine or compiler', () => {
  it.each([[['--help']], [['--version']], [['list']], [['list', '--json']], [['status', '<run>']], [['inspect']], [['report', '<run>']], [['doctor', 'cleanup']]])('wfcli %j', (args) => {
    const { status, stdout, loaded } = loadedBy(args.map((arg) => (arg === '<run>' ? runId : arg)));
    expect(status).toBe(0);
    expect(stdout).not.toBe('');
    if (args[0] === 'list' || args[0] === 'status' || args[0] === 'report') expect(stdout).toContain(runId);
    // The hook saw the command's own modules: the record is not empty by accident.
    expect(loaded.some((url) => url.endsWith('/dist/cli/wfcli.js'))).toBe(true);
    // Every validator these commands use is compiled at build time (scripts/precompile-schemas.ts), those of calls.jsonl and the agents' files too.
    const forbidden = [...FORBIDDEN, AJV_COMPILER];
    // list and status hash only the project's cwd, in JavaScript: importing node:crypto would cost them 6-9 ms (kernel/store/digest.ts).
    if (args[0] === 'list' || args[0] === 'status') forbidden.push(/^node:crypto$/);
    // The build hands the package node:fs without its ES module facade, whose making loads the fs streams and promises API (scripts/output-rewrites.mjs).
    forbidden.push(/^node:fs$/);
    // Few files, each ASCII: Node's loader costs about 1 ms a module, and decodes a module with one non-ASCII character as UTF-16
    // (scripts/startup-chunks.mjs): the entry and the dispatcher's two chunks; list and status the compile cache's, the readers' and json-encode's too.
    const files = [...new Set(loaded.filter((line) => line.startsWith('load file:') && line.includes('/dist/')).map((line) => line.slice('load '.length)))];
    const most = args[0] === '--help' || args[0] === '--version' ? 3 : args[0] === 'list' || args[0] === 'status' ? 6 : Infinity;
    expect(files.length, files.join('\n')).toBeLessThanOrEqual(most);
    for (const file of files) expect(readFileSync(fileURLToPath(file), 'utf8'), file).not.toMatch(/[^\x00-\x7f]/);
    for (const url of loaded) for (const pattern of forbidden) expect(url, `${args.join(' ')} loads ${url}`).not.toMatch(pattern);
  });
});

/** Files in the store's compile cache (one per module, in a folder per Node version and flags). */
function cachedModules(userHome: string): number {
  const cache = join(workflowsRoot(userHome), '.compile-cache');
  return existsSync(cache) ? readdirSync(cache).reduce((count, folder) => count + readdirSync(join(cache, folder)).length, 0) : 0;
}

describe("the read-only commands' compile cache", () => {
  it('list and status read their modules from the compile cache of an existing store, and make no store for it', () => {
    const emptyHome = join(dir, 'empty-home');
    mkdirSync(join(emptyHome, 'agent'), { recursive: true });
    const empty = loadedBy(['list'], emptyHome);
    expect(empty.status, empty.stderr).toBe(0);
    expect(empty.stdout).toBe('no runs in this project\n');
    expect(existsSync(workflowsRoot(emptyHome))).toBe(false);
    // In the store: the first command keeps the readers' chunk compiled, the next ones take it (Node's own report).
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, PI_CODING_AGENT_DIR: join(home, 'agent'), PI_OFFLINE: '1', NODE_DEBUG_NATIVE: 'COMPILE_CACHE' };
    delete env['NODE_COMPILE_CACHE'];
    delete env['NODE_DISABLE_COMPILE_CACHE'];
    for (const args of [['list'], ['list'], ['status', runId]]) {
      const result = spawnSync(process.execPath, [WFCLI, ...args], { cwd, env, encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain(runId);
    }
    const again = spawnSync(process.execPath, [WFCLI, 'status', runId], { cwd, env, encoding: 'utf8' });
    expect(again.stderr).toMatch(/cache for file:\S+\/dist\/chunks\/run-readers-[\w-]+\.js was accepted/);
  });
});

describe('wfcli view', () => {
  it('serves the list, a run page and its model with no Pi, engine or child process, and exits 0 on SIGTERM', async () => {
    const record = join(dir, 'loaded-view.txt');
    writeFileSync(record, '');
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, PI_CODING_AGENT_DIR: join(home, 'agent'), PI_OFFLINE: '1', WFCLI_LOADED: record };
    const child = spawn(process.execPath, ['--import', pathToFileURL(join(dir, 'hook.mjs')).href, WFCLI, 'view'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const found = /http:\/\/127\.0\.0\.1:\d+\/\S+\//.exec(stdout);
        if (found) resolve(found[0]);
      });
      void exited.then((code) => reject(new Error(`wfcli view exited ${code} before printing its URL`)));
    });
    expect((JSON.parse(await (await fetch(`${url}api/runs`)).text()) as { runId: string }[]).map((run) => run.runId)).toEqual([runId]);
    expect((await fetch(`${url}runs/${runId}`)).status).toBe(200);
    expect(((await (await fetch(`${url}api/runs/${runId}`)).json()) as { run: { state: string } }).run.state).toBe('completed');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const loaded = readFileSync(record, 'utf8').split('\n').filter(Boolean);
    expect(loaded.some((entry) => entry.endsWith('/dist/cli/wfcli.js'))).toBe(true);
    for (const entry of loaded) for (const pattern of FORBIDDEN) expect(entry, `wfcli view loads ${entry}`).not.toMatch(pattern);
  });
});

describe('wfcli run', () => {
  /** Pi's unbundled SDK and the packages its bundle holds: a module of theirs means the SDK loaded twice. */
  const REMOTE_AGENTS = /\/dist\/plugins\/remote-agents\/library\.js$|\/node_modules\/(@dbos-inc|pg|pg-pool|pg-protocol)\//;
  const UNBUNDLED = /\/node_modules\/(@earendil-works\/(pi-coding-agent\/dist\/(?!bundle\/)|pi-ai\/|pi-tui\/|pi-agent-core\/)|typebox\/)/;
  /** Loaded on first use (issue 34): selector patterns (micromatch) and git for worktrees (nano-spawn). */
  const FIRST_USE = /\/node_modules\/(micromatch|picomatch|braces|nano-spawn)\//;
  /** Pi's extension loader: this package's entries are imported natively, so with no other extension nothing of it loads. */
  const JITI = /\/node_modules\/jiti\//;
  /** This package's modules a `run` loads: 62 today (16 Pi entries, 14 feature libraries, wfcli.js, 31 chunks). */
  const MOST_RUN_MODULES = 64;

  it("loads Pi's SDK from Pi's bundle only, and keeps Node's compile cache in the store", () => {
    writeFileSync(join(cwd, 'small.js'), "log('small');\nreturn 2;\n");
    // The engine that stored the test's run (from source) keeps its own sandbox code cache, under another key.
    const sandboxCaches = (): string[] => readdirSync(join(workflowsRoot(home), '.sandbox-cache'));
    const before = sandboxCaches();
    const cachedBefore = cachedModules(home);
    const { status, stdout, stderr, loaded } = loadedBy(['run', '--script', 'small.js']);
    expect(status, stderr).toBe(0);
    expect(stdout.trim()).toBe('2');
    // Loaded, not resolved: finding the bundle resolves the SDK's main beside it.
    const evaluated = loaded.filter((line) => line.startsWith('load ')).map((line) => line.slice('load '.length));
    expect(evaluated.some((url) => url.includes('/pi-coding-agent/dist/bundle/'))).toBe(true);
    expect(evaluated.filter((url) => UNBUNDLED.test(url))).toEqual([]);
    expect(loaded.filter((url) => JITI.test(url))).toEqual([]);
    // The kernel a session loads is one chunk (scripts/startup-chunks.mjs): rollup's own split made it 26 modules more.
    const own = new Set(evaluated.filter((url) => url.startsWith(pathToFileURL(join(WFCLI, '..', '..')).href)));
    expect(own.size, [...own].join('\n')).toBeLessThanOrEqual(MOST_RUN_MODULES);
    // Without extensionSettings["remote-agents"] in a settings file, nothing of remote agents loads: not its library, DBOS or pg.
    expect(loaded.filter((url) => REMOTE_AGENTS.test(url))).toEqual([]);
    expect(loaded.some((url) => url.endsWith('/dist/plugins/remote-agents/index.js'))).toBe(true);
    // A script with no agent and no worktree evaluates no selector pattern and runs no git.
    expect(loaded.filter((url) => FIRST_USE.test(url))).toEqual([]);
    // list and status above cached the readers' modules already: run adds Pi's.
    expect(cachedModules(home)).toBeGreaterThan(cachedBefore);
    // The sandbox's code cache too (kernel/sandbox/code-cache.ts): one file of the built package's sandbox, written by the host.
    expect(sandboxCaches().filter((name) => !before.includes(name))).toEqual([expect.stringMatching(/^ses-[0-9a-f]{32}\.bin$/)]);
  });

  it('caches nothing through a link where the cache folder belongs, and still runs', () => {
    const linkedHome = join(dir, 'linked-home');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(join(linkedHome, 'agent'), { recursive: true });
    mkdirSync(workflowsRoot(linkedHome), { recursive: true });
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(workflowsRoot(linkedHome), '.compile-cache'));
    symlinkSync(elsewhere, join(workflowsRoot(linkedHome), '.sandbox-cache'));
    writeFileSync(join(cwd, 'small.js'), "log('small');\nreturn 3;\n");
    const { status, stdout, stderr } = loadedBy(['run', '--script', 'small.js'], linkedHome);
    expect(status, stderr).toBe(0);
    expect(stdout.trim()).toBe('3');
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});
