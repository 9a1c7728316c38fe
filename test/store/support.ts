/**
 * Shared by the store's adversarial suites: a private HOME and project, the
 * built `wfcli` run as a real process with a time-out that fails the test
 * (a hang is a failure, never a wait), digests of what lies outside the
 * store, and stored runs made fast with the real engine in this process.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { WorkflowEngine } from '../../kernel/engine/engine.js';
import { createKernel } from '../../kernel/kernel.js';
import { runsDirectory, workflowsRoot } from '../../kernel/store/index.js';
import { evidencePlugin } from '../../plugins/evidence/index.js';

export const REPO = resolve(import.meta.dirname, '..', '..');
export const WFCLI = join(REPO, 'dist', 'cli', 'wfcli.js');

/** Fails at once, naming the fix, when the CLI was not built (`npm test` builds first). */
export function requireBuiltCli(): void {
  if (!existsSync(WFCLI)) throw new Error(`${WFCLI} is missing: run \`npm run build\` first`);
}

export interface StoreEnv {
  readonly dir: string;
  readonly home: string;
  readonly agentDir: string;
  /** The project: wfcli's cwd. */
  readonly cwd: string;
  readonly root: string;
}

export function makeEnv(prefix: string, home?: string): StoreEnv {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const homeDir = home ?? join(dir, 'home');
  const agentDir = join(homeDir, '.pi', 'agent');
  const cwd = join(dir, 'project');
  for (const path of [agentDir, cwd]) mkdirSync(path, { recursive: true });
  return { dir, home: homeDir, agentDir, cwd, root: workflowsRoot(homeDir) };
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** How long one wfcli process may take before it counts as hung (a FIFO or /dev/zero read never ends by itself). */
export const CLI_TIMEOUT_MS = 120_000;

/** Runs `wfcli <args>` to its end; rejects (killing it) when it outlives the time-out. */
export function wfcli(env: StoreEnv, args: readonly string[], timeoutMs = CLI_TIMEOUT_MS): Promise<CliResult> {
  const started = Date.now();
  const childEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PI_')));
  const child = spawn(process.execPath, [WFCLI, ...args], {
    cwd: env.cwd,
    env: { ...childEnv, HOME: env.home, PI_CODING_AGENT_DIR: env.agentDir, PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (data: string) => (stdout += data));
  child.stderr.setEncoding('utf8').on('data', (data: string) => (stderr += data));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`wfcli ${args.join(' ')} hung: still running after ${timeoutMs} ms\nstderr: ${stderr}`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** Runs `tasks` with at most `limit` at a time, in order of start. */
export async function inBatches<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/** A digest of everything under `path`, never following a link: names, types, modes, link targets and bytes. */
export function digestTree(path: string): string {
  const hash = createHash('sha256');
  const walk = (target: string, name: string): void => {
    const stats = lstatSync(target);
    hash.update(`${name}\0${stats.mode}\0`);
    if (stats.isSymbolicLink()) hash.update(`link:${readlinkSync(target)}\0`);
    else if (stats.isDirectory()) for (const child of readdirSync(target).sort()) walk(join(target, child), `${name}/${child}`);
    else if (stats.isFile()) hash.update(readFileSync(target));
  };
  walk(path, '.');
  return hash.digest('hex');
}

/** An engine over the env's store (evidence plugin, no agents), for making runs without Pi. */
export function storeEngine(env: StoreEnv, sessionId: string): WorkflowEngine {
  return new WorkflowEngine({ kernel: createKernel({ plugins: [evidencePlugin] }), sessionId, root: env.root, agentDir: env.agentDir, home: env.home });
}

/** Copies a stored run under a new ID (same session), its snapshot's ID and paths rewritten. */
export function cloneRun(env: StoreEnv, sessionId: string, from: string, to: string): string {
  const runs = runsDirectory(env.root, env.cwd, sessionId);
  const target = join(runs, to);
  cpSync(join(runs, from), target, { recursive: true });
  const snapshot = join(target, 'snapshot.json');
  writeFileSync(snapshot, readFileSync(snapshot, 'utf8').split(from).join(to), { mode: 0o600 });
  return target;
}

export function removeEnv(env: StoreEnv): void {
  rmSync(env.dir, { recursive: true, force: true });
}
