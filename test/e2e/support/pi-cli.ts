/**
 * Runs the real `pi` CLI in a temp HOME with its own agent dir, so the e2e
 * tests see what a user sees: `pi install`, print and JSON mode, sessions
 * continued by a later process, and run storage under `~/.pi/workflows`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PI_LATEST_CLI } from '../../../scripts/pi-latest.js';
import { toolExecutions, type ToolExecution } from './pi-events.js';
import { logProcess } from './process-log.js';
import { MODEL_ID, type ScriptedModel } from './scripted-model.js';

export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The `pi` entry script of an installed or unpacked Pi package directory. */
function piBin(piPackage: string): string {
  return join(piPackage, (JSON.parse(readFileSync(join(piPackage, 'package.json'), 'utf8')) as { bin: { pi: string } }).bin.pi);
}

/**
 * Which `pi` the suite drives (docs/testing-e2e.md): the lockfile's (0.87.1)
 * by default; `PI_CLI=latest` the cached 1.x release (scripts/pi-latest.ts,
 * fetched by the global setup); any other value a `pi` entry script path.
 */
function selectPiCli(choice: string | undefined): string {
  if (choice === undefined || choice === '') return piBin(join(REPO_ROOT, 'node_modules', '@earendil-works', 'pi-coding-agent'));
  if (choice !== 'latest') return resolve(choice);
  if (!existsSync(PI_LATEST_CLI)) throw new Error(`${PI_LATEST_CLI} is missing: run \`node scripts/pi-latest.ts\` (the e2e global setup does)`);
  return PI_LATEST_CLI;
}

/** The `pi` entry script; run with this Node (22: vitest is started through npm or npx). */
export const PI_CLI = selectPiCli(process.env['PI_CLI']);

/** The Pi package the entry script belongs to. */
export function piPackageOf(cli: string): string {
  for (let dir = dirname(cli); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === '@earendil-works/pi-coding-agent') return dir;
  }
  throw new Error(`${cli} is not inside a @earendil-works/pi-coding-agent package`);
}

/**
 * Whether the driven `pi` gives tools its own executor (`ctx.executeTool`,
 * Pi 0.99 and later, with tool exposure, structured results and built-in
 * extensions), read from the package's own extension declarations. Tests
 * whose outcome depends on it branch on this feature, never on a version.
 */
export const PI_EXECUTES_TOOLS = (() => {
  const declarations = join(piPackageOf(PI_CLI), 'dist', 'core', 'extensions', 'types.d.ts');
  return existsSync(declarations) && /\bexecuteTool\(/.test(readFileSync(declarations, 'utf8'));
})();

export interface PiHome {
  /** The temp HOME: runs land in `<home>/.pi/workflows`. */
  readonly home: string;
  /** `PI_CODING_AGENT_DIR`: models.json (the scripted model) and settings.json. */
  readonly agentDir: string;
  /** The project directory every `pi` process runs in. */
  readonly cwd: string;
  /** Run IDs stored for a session of this project. */
  runIds(sessionId: string): string[];
  runDir(sessionId: string, runId: string): string;
  readJson(file: string): unknown;
  /** Kills the `pi` processes still alive and removes the temp tree. */
  close(): void;
}

export interface PiResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface PiProcess {
  readonly exited: Promise<PiResult>;
  /** SIGKILL: the host dies without any shutdown. */
  kill(): Promise<PiResult>;
  /** SIGINT (Ctrl-C), then waits for the end. */
  interrupt(): Promise<PiResult>;
  /** SIGTERM, then waits for the end. */
  terminate(): Promise<PiResult>;
  /**
   * Settles with the first match of `pattern` in what the process printed so
   * far or later, on `stream` (default: stdout or stderr); rejects if it exits first.
   */
  printed(pattern: RegExp, stream?: 'stdout' | 'stderr'): Promise<RegExpExecArray>;
  /** The process ID. */
  readonly pid: number | undefined;
}

const live = new Map<string, Set<ChildProcess>>();

/** A temp HOME whose agent dir makes the scripted model Pi's default model. */
export function createPiHome(model: ScriptedModel): PiHome {
  const home = mkdtempSync(join(tmpdir(), 'pi-e2e-'));
  const agentDir = join(home, 'agent');
  const cwd = join(home, 'project');
  mkdirSync(agentDir);
  mkdirSync(cwd);
  writeFileSync(join(agentDir, 'models.json'), JSON.stringify({ providers: { e2e: model.provider } }, null, 2));
  // No provider retries: a scripted failure fails fast instead of backing off.
  writeFileSync(join(agentDir, 'settings.json'), JSON.stringify({ defaultProvider: 'e2e', defaultModel: MODEL_ID, quietStartup: true, retry: { enabled: false } }, null, 2));
  live.set(home, new Set());
  const projectsDir = join(home, '.pi', 'workflows', 'projects');
  const sessionRuns = (sessionId: string): string => {
    const projects = readdirSync(projectsDir);
    if (projects.length !== 1) throw new Error(`expected one project under ${projectsDir}, found ${projects.join(', ')}`);
    return join(projectsDir, projects[0] ?? '', 'sessions', sessionId, 'runs');
  };
  return {
    home,
    agentDir,
    cwd,
    runIds: (sessionId) => readdirSync(sessionRuns(sessionId)).filter((name) => !name.startsWith('.')),
    runDir: (sessionId, runId) => join(sessionRuns(sessionId), runId),
    readJson: (file) => JSON.parse(readFileSync(file, 'utf8')) as unknown,
    close() {
      for (const child of live.get(home) ?? []) child.kill('SIGKILL');
      live.delete(home);
      // A `pi` this helper did not start (in tmux) may still write its run and session as it exits on SIGHUP: retry ENOTEMPTY (backoff up to ~20 s).
      rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
    },
  };
}

/** The environment of every `pi` and `wfcli` process: the temp HOME and agent dir, offline, none of the developer's PI_* settings. */
export function piEnv(home: PiHome): NodeJS.ProcessEnv {
  // The developer's own PI_* settings (agent dir, session dir, offline ...) must not leak in.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PI_')));
  return { ...env, HOME: home.home, PI_CODING_AGENT_DIR: home.agentDir, PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' };
}

/** `wfcli` of this checkout (`npm run build` first). */
export const WFCLI = join(REPO_ROOT, 'dist', 'cli', 'wfcli.js');

/** Where a process runs: the project directory unless `cwd` says otherwise. */
export interface CliOptions {
  readonly cwd?: string;
}

/** Starts `pi <args>` in the project directory. */
export function startPi(home: PiHome, args: readonly string[], options: CliOptions = {}): PiProcess {
  return startCli(home, PI_CLI, args, options);
}

/** Starts `wfcli <args>` in the project directory, with the environment `pi` gets. */
export function startWfcli(home: PiHome, args: readonly string[], options: CliOptions = {}): PiProcess {
  return startCli(home, WFCLI, args, options);
}

/** Runs `wfcli <args>` in the project directory, with the environment `pi` gets, to its end (any exit code). */
export async function runWfcli(home: PiHome, args: readonly string[], options: CliOptions = {}): Promise<PiResult> {
  const wfcli = startCli(home, WFCLI, args, options);
  const guard = setTimeout(() => void wfcli.kill(), HANG_MS);
  return wfcli.exited.finally(() => clearTimeout(guard));
}

function startCli(home: PiHome, script: string, args: readonly string[], options: CliOptions = {}): PiProcess {
  const child = spawn(process.execPath, [script, ...args], { cwd: options.cwd ?? home.cwd, env: piEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
  live.get(home.home)?.add(child);
  let stdout = '';
  let stderr = '';
  const waiters: { pattern: RegExp; stream: 'stdout' | 'stderr' | undefined; resolve(match: RegExpExecArray): void }[] = [];
  const check = (): void => {
    for (const waiter of [...waiters]) {
      const match = (waiter.stream !== 'stderr' ? waiter.pattern.exec(stdout) : null) ?? (waiter.stream !== 'stdout' ? waiter.pattern.exec(stderr) : null);
      if (match !== null) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  };
  child.stdout.setEncoding('utf8').on('data', (data: string) => ((stdout += data), check()));
  child.stderr.setEncoding('utf8').on('data', (data: string) => ((stderr += data), check()));
  const ended = logProcess(`${script === WFCLI ? 'wfcli' : 'pi'} ${args.join(' ')}`, () => ({ stdout, stderr }));
  const exited = new Promise<PiResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      live.get(home.home)?.delete(child);
      ended(`exited ${code ?? signal}`);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    exited,
    pid: child.pid,
    printed(pattern, stream) {
      return new Promise<RegExpExecArray>((resolve, reject) => {
        waiters.push({ pattern, stream, resolve });
        check();
        void exited.then((result) => reject(new Error(`the process exited (${result.code ?? result.signal}) before printing ${pattern}:\n${result.stderr.slice(-2000)}`)));
      });
    },
    kill() {
      child.kill('SIGKILL');
      return exited;
    },
    interrupt() {
      child.kill('SIGINT');
      return exited;
    },
    terminate() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Past this a `pi` process that has not exited is killed, so a hang fails with its output instead of a bare time-out. */
const HANG_MS = 120_000;

/**
 * Installs this package into the agent dir the way Pi loads an installed
 * package: `pi install` of a checkout without its dev and peer dependencies
 * (Pi installs packages with `--omit=peer`). The checkout's own node_modules
 * holds Pi 0.87.1 as a dev dependency, and a `pi` loads an extension's Pi
 * imports from the nearest node_modules copy before its own modules, so
 * `pi install <repo>` would run the package on 0.87.1's SDK inside any `pi`.
 * The copy here has `package.json`, `CHANGELOG.md`, `tsconfig.json` (still a
 * source checkout: no update notice), `dist/` and `prompts/`, and a node_modules of
 * links to the runtime `dependencies` only; `@earendil-works/*` and
 * `typebox` come from the `pi` that loads it.
 */
export async function installPackage(home: PiHome): Promise<string> {
  const root = join(home.home, 'workflows-package');
  mkdirSync(join(root, 'node_modules'), { recursive: true });
  for (const file of ['package.json', 'CHANGELOG.md', 'tsconfig.json']) cpSync(join(REPO_ROOT, file), join(root, file));
  cpSync(join(REPO_ROOT, 'dist'), join(root, 'dist'), { recursive: true });
  cpSync(join(REPO_ROOT, 'prompts'), join(root, 'prompts'), { recursive: true });
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    mkdirSync(dirname(join(root, 'node_modules', name)), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules', name), join(root, 'node_modules', name), 'dir');
  }
  addLocalPackage(home, root);
  return root;
}

/**
 * Adds a local package directory to the agent dir's settings exactly as `pi install <dir>` does (its path
 * relative to the agent dir, appended to `packages`; a local install only checks that the path exists),
 * without the cost of starting a `pi` for it. packages.test.ts runs the real `pi install` on both Pis.
 */
export function addLocalPackage(home: PiHome, root: string): void {
  if (!existsSync(root)) throw new Error(`Path does not exist: ${root}`);
  const file = join(home.agentDir, 'settings.json');
  const settings = JSON.parse(readFileSync(file, 'utf8')) as { packages?: unknown[] };
  settings.packages = [...(settings.packages ?? []), relative(home.agentDir, resolve(root)) || '.'];
  writeFileSync(file, JSON.stringify(settings, null, 2));
}

/**
 * Runs one prompt through `pi --mode rpc <args>` and ends the session (its stdin closed, which Pi's RPC mode
 * takes as the end) once the agent's turn has ended. Unlike `-p` and JSON mode, whose runs are all waited for
 * (docs/tools.md), an RPC session keeps a background run in the background while the model goes on. Its stdout
 * carries the same event lines as JSON mode.
 */
export async function runPiRpcPrompt(home: PiHome, args: readonly string[], message: string): Promise<PiResult> {
  const child = spawn(process.execPath, [PI_CLI, '--mode', 'rpc', ...args], { cwd: home.cwd, env: piEnv(home), stdio: ['pipe', 'pipe', 'pipe'] });
  live.get(home.home)?.add(child);
  let stdout = '';
  let stderr = '';
  let ended = false;
  child.stderr.setEncoding('utf8').on('data', (data: string) => (stderr += data));
  const logged = logProcess(`pi --mode rpc ${args.join(' ')} (prompt ${JSON.stringify(message)})`, () => ({ stdout, stderr }));
  child.stdout.setEncoding('utf8').on('data', (data: string) => {
    stdout += data;
    if (!ended && /^\{"type":"agent_end"/m.test(stdout)) {
      ended = true;
      child.stdin.end();
    }
  });
  const exited = new Promise<PiResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      live.get(home.home)?.delete(child);
      logged(`exited ${code ?? signal}`);
      resolve({ code, signal, stdout, stderr });
    });
  });
  child.stdin.write(`${JSON.stringify({ type: 'prompt', message })}\n`);
  const guard = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
  const result = await exited.finally(() => clearTimeout(guard));
  if (result.code !== 0) throw new Error(`pi --mode rpc ${args.join(' ')} exited ${result.code ?? result.signal}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
  return result;
}

/** Runs `pi <args>` to its end; throws with its output unless it exits 0. */
export async function runPi(home: PiHome, args: readonly string[], options: CliOptions = {}): Promise<PiResult> {
  const pi = startPi(home, args, options);
  const guard = setTimeout(() => void pi.kill(), HANG_MS);
  const result = await pi.exited.finally(() => clearTimeout(guard));
  if (result.code !== 0) throw new Error(`pi ${args.join(' ')} exited ${result.code ?? result.signal}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
  return result;
}

/**
 * One JSON-mode `pi` session (`sessionId`, project trusted) whose model calls
 * `workflow` once per launch, foreground, in order, then ends; returns the
 * `workflow` tool executions.
 */
export async function launchWorkflows(
  home: PiHome,
  model: ScriptedModel,
  sessionId: string,
  launches: readonly Record<string, unknown>[],
  extra: readonly string[] = [],
): Promise<ToolExecution[]> {
  model.main(({ toolResults }) => {
    const next = launches[toolResults.length];
    return next === undefined ? { text: 'done' } : { toolCalls: [{ name: 'workflow', arguments: { foreground: true, ...next } }] };
  });
  const { stdout } = await runPi(home, [...extra, '--mode', 'json', '--approve', '--session-id', sessionId, 'Run the workflows']);
  return toolExecutions(stdout).filter((execution) => execution.toolName === 'workflow');
}
