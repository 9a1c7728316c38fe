/**
 * Start-up benchmarks (`npm run bench:startup`): what the package costs a Pi
 * start and how fast wfcli answers. Prints:
 *
 *   BENCH pi_start_overhead_ms         `pi --list-models` (which loads every extension) with the package
 *                                      minus without it, Pi 0.87.1 as users run it (its `pi` command,
 *                                      `dist/bundle/cli.js`): the median of the paired differences
 *   BENCH pi_start_overhead_cpu_ms     the same for CPU time (user + sys)
 *   BENCH pi_start_overhead_mb         the same for the peak resident set
 *   BENCH pi_start_overhead_ms_latest  / _mb_latest: the same with Pi 1.5.2 (`dist/bundle/cli.js`)
 *   BENCH pi_start_floor_ms            / _latest: the same for a package of as many empty extension
 *                                      entries as this one has: what Pi itself charges for them
 *   BENCH pi_start_floor_resources_ms  / _latest: the same with the package's prompt templates and skills
 *                                      beside the empty entries: what Pi charges for reading those
 *   BENCH pi_start_over_floor_ms       / _cpu_ms, _latest: the package minus the floor, the target's figure
 *   BENCH node_start_ms                `node` running an empty file: every wfcli figure includes it
 *   BENCH pi_list_models_ms            a bare `pi --list-models` (Pi 0.87.1, no package): the floor of the
 *                                      wfcli commands that open a Pi session
 *   BENCH wfcli_help_ms                `wfcli --help`
 *   BENCH wfcli_list_200_ms            `wfcli list` in a project with 200 stored runs
 *   BENCH wfcli_status_ms              `wfcli status <run-id>`
 *   BENCH wfcli_run_shell_ms           `wfcli run --script examples/hello.js` (shell commands, no agent)
 *   BENCH <name>_cpu_ms                beside each figure: its CPU time (user + sys, children waited for
 *                                      included, to the millisecond: bash's `times`)
 *   BENCH wfcli_help_over_node_ms      / wfcli_list_200_over_node_ms, wfcli_status_over_node_ms,
 *                                      wfcli_run_shell_over_list_models_ms, each with _cpu_ms: the
 *                                      targets' figures, medians of differences within a round of the
 *                                      wfcli loop (node, help, list, status, list-models, run in turn)
 *
 * BENCH_STARTUP_PACKAGE=<dir> measures another built checkout (a baseline) with this one's Pi and examples.
 * BENCH_STARTUP_ONLY=wfcli skips the Pi starts and prints only the wfcli figures.
 * Each figure is the median of BENCH_STARTUP_RUNS runs (default 7, at least 5).
 * The package is installed the way users get it: `npm pack` of the built
 * package, installed with its runtime dependencies only (no dev or peer
 * dependencies, whose resolution --legacy-peer-deps skips: Pi supplies its
 * own SDK) into a temporary directory, listed
 * in the `packages` of a temporary Pi agent dir. The bare home is the same
 * agent dir without it; the bare, floor and package homes are run in turn, in
 * one loop per Pi, so the machine's load drifts over all alike. Targets (issue 34, quiet machine): CPU over the
 * floor ≤ 25 ms and RSS ≤ 10 MB on both Pis; help, list and status ≤ 60 ms
 * over node (`*_over_node_ms`); run ≤ 300 ms over list-models (`wfcli_run_shell_over_list_models_ms`).
 */
import '../scripts/ts-resolve.mjs';

const { execFileSync, spawnSync } = await import('node:child_process');
const { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');
const { fileURLToPath } = await import('node:url');
const { ensurePiLatest } = await import('../scripts/pi-latest.js');

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The built package to install: this checkout, or BENCH_STARTUP_PACKAGE (another checkout's root, built) to compare. */
const PACKED = process.env['BENCH_STARTUP_PACKAGE'] ?? ROOT;
const RUNS = Math.max(5, Number(process.env['BENCH_STARTUP_RUNS'] ?? 7));
const LISTED_RUNS = 200;
const TIME = '/usr/bin/time';

function report(name: string, value: number, unit: string): void {
  console.log(`BENCH ${name} ${value.toFixed(value >= 100 ? 0 : 1)} ${unit}`);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

interface Home {
  readonly home: string;
  readonly agentDir: string;
  readonly cwd: string;
}

function makeHome(parent: string, name: string, packages: readonly string[]): Home {
  const home = join(parent, name);
  const agentDir = join(home, 'agent');
  const cwd = join(home, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(agentDir, 'settings.json'), JSON.stringify({ quietStartup: true, packages }, null, 2));
  return { home, agentDir, cwd };
}

function envOf(home: Home): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PI_')));
  return { ...env, HOME: home.home, PI_CODING_AGENT_DIR: home.agentDir, PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' };
}

interface Sample {
  readonly ms: number;
  /** CPU time (user + sys, the process and the children it waited for), ms (NaN without bash). */
  readonly cpuMs: number;
  /** Peak resident set, MB (NaN without /usr/bin/time). */
  readonly mb: number;
}

/**
 * Runs the command, then bash's `times`: its second line is the CPU its
 * children used, to the millisecond (GNU time prints it to 10 ms, too coarse
 * for a 25 ms target).
 */
const WITH_TIMES = '"$@"; status=$?; times >&2; exit $status';
const CHILDREN_TIMES = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/;

/** Runs `node <script> <args>` in the home's project to its end; fails on a non-zero exit. */
function sample(home: Home, script: string, args: readonly string[]): Sample {
  const node = [process.execPath, script, ...args];
  const command = existsSync(TIME) ? [TIME, '-f', 'BENCH_TIME %M', ...node] : node;
  const started = performance.now();
  const result = spawnSync('bash', ['-c', WITH_TIMES, 'bash', ...command], { cwd: home.cwd, env: envOf(home), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${script} ${args.join(' ')} exited ${result.status ?? result.signal}:\n${result.stderr}`);
  const stderr = result.stderr ?? '';
  const times = CHILDREN_TIMES.exec(stderr);
  const cpuMs = times === null ? Number.NaN : (Number(times[1]) * 60 + Number(times[2]) + Number(times[3]) * 60 + Number(times[4])) * 1000;
  const peak = /BENCH_TIME (\d+)/.exec(stderr);
  return { ms, cpuMs, mb: peak === null ? Number.NaN : Number(peak[1]) / 1024 };
}

/** Installs the packed package with its runtime dependencies; returns its directory. */
function installPackage(parent: string): string {
  const packs = join(parent, 'packs');
  mkdirSync(packs);
  execFileSync('npm', ['pack', '--silent', '--pack-destination', packs], { cwd: PACKED, stdio: ['ignore', 'ignore', 'inherit'] });
  const tarball = readdirSync(packs).find((file) => file.endsWith('.tgz'));
  if (tarball === undefined) throw new Error('npm pack wrote no tarball');
  const prefix = join(parent, 'install');
  mkdirSync(prefix);
  writeFileSync(join(prefix, 'package.json'), '{"private":true}\n');
  execFileSync('npm', ['install', '--silent', '--prefer-offline', '--no-audit', '--no-fund', '--omit=dev', '--legacy-peer-deps', join(packs, tarball)], { cwd: prefix, stdio: ['ignore', 'ignore', 'inherit'] });
  return join(prefix, 'node_modules', 'pi-extensible-workflows');
}

/**
 * A package of as many empty extension entries as the measured one has, a
 * local path in Pi's settings: its overhead is the floor of the package's
 * (one entry per feature, so that a package filter removes exactly one).
 */
function emptyEntriesPackage(parent: string, resources = false): string {
  const dir = join(parent, resources ? 'empty-entries-resources' : 'empty-entries');
  mkdirSync(join(dir, 'entries'), { recursive: true });
  const manifest = (JSON.parse(readFileSync(join(PACKED, 'package.json'), 'utf8')) as { pi: { extensions: readonly string[]; prompts?: readonly string[]; skills?: readonly string[] } }).pi;
  const extensions = Array.from({ length: manifest.extensions.length }, (_, index) => {
    writeFileSync(join(dir, 'entries', `entry-${index}.js`), 'export default function () {}\n');
    return `./entries/entry-${index}.js`;
  });
  // With resources: the package's own prompt templates and skills too, which Pi reads (and parses the YAML front matter of) at every start.
  const shipped = resources ? { prompts: manifest.prompts ?? [], skills: manifest.skills ?? [] } : {};
  if (resources) for (const folder of ['prompts', 'skills']) cpSync(join(PACKED, folder), join(dir, folder), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'empty-entries', version: '1.0.0', type: 'module', keywords: ['pi-package'], pi: { extensions, ...shipped } }));
  return dir;
}

/** Reports the median of paired differences `<name>_ms`, `_cpu_ms` and `_mb` (each with `suffix`). */
function reportPaired(name: string, suffix: string, pairs: readonly (readonly [Sample, Sample])[], memory = true): void {
  const medianOf = (pick: (entry: Sample) => number): number => median(pairs.map(([without, withIt]) => pick(withIt) - pick(without)));
  report(`${name}_ms${suffix}`, medianOf((entry) => entry.ms), 'ms');
  if (!pairs.some(([without, withIt]) => Number.isNaN(without.cpuMs) || Number.isNaN(withIt.cpuMs))) report(`${name}_cpu_ms${suffix}`, medianOf((entry) => entry.cpuMs), 'ms');
  if (memory && !pairs.some(([without, withIt]) => Number.isNaN(without.mb) || Number.isNaN(withIt.mb))) report(`${name}_mb${suffix}`, medianOf((entry) => entry.mb), 'MB');
}

interface PiHomes {
  readonly bare: Home;
  readonly floor: Home;
  readonly resourcesFloor: Home;
  readonly withPackage: Home;
}

/**
 * Pi starts (`--list-models`, which loads every extension) of one `pi` entry
 * script in the four homes, one after another in each round, so that the
 * machine's load drifts over all alike; every figure is a median of
 * differences within a round.
 */
function piStarts(cli: string, homes: PiHomes, suffix: string): void {
  const args = ['--list-models'];
  const order = [homes.bare, homes.floor, homes.resourcesFloor, homes.withPackage];
  // One untimed start of each warms the file cache and Pi's own caches.
  for (const home of order) sample(home, cli, args);
  const rounds = Array.from({ length: RUNS }, () => order.map((home) => sample(home, cli, args)));
  const pairs = (from: number, to: number): [Sample, Sample][] => rounds.map((round) => [round[from]!, round[to]!]);
  reportPaired('pi_start_overhead', suffix, pairs(0, 3));
  reportPaired('pi_start_floor', suffix, pairs(0, 1));
  reportPaired('pi_start_floor_resources', suffix, pairs(0, 2));
  reportPaired('pi_start_over_floor', suffix, pairs(1, 3));
}

/** One command of the wfcli loop: `node <script> <args>` in a home. */
interface Command {
  readonly name: string;
  readonly home: Home;
  readonly script: string;
  readonly args: readonly string[];
}

/**
 * The wfcli figures in one alternating loop: each round runs every command
 * once, in turn, so the machine's load drifts over all alike. Prints each
 * command's median wall and CPU time (`<name>_ms`, `<name>_cpu_ms`), then
 * each target's figure, the median of differences within a round
 * (`<name>_over_<floor>_ms`, `_cpu_ms`). One untimed run of each first.
 */
function commandLoop(commands: readonly Command[], overs: readonly (readonly [name: string, floor: string])[]): void {
  for (const command of commands) sample(command.home, command.script, command.args);
  const rounds = Array.from({ length: RUNS }, () => commands.map((command) => sample(command.home, command.script, command.args)));
  commands.forEach((command, index) => {
    const samples = rounds.map((round) => round[index]!);
    report(`${command.name}_ms`, median(samples.map((entry) => entry.ms)), 'ms');
    if (!samples.some((entry) => Number.isNaN(entry.cpuMs))) report(`${command.name}_cpu_ms`, median(samples.map((entry) => entry.cpuMs)), 'ms');
  });
  const at = (name: string): number => commands.findIndex((command) => command.name === name);
  for (const [name, floor] of overs) {
    const pairs = rounds.map((round): [Sample, Sample] => [round[at(floor)]!, round[at(name)]!]);
    reportPaired(`${name}_over_${floor.replace(/_start$|^pi_/, '')}`, '', pairs, false);
  }
}

/** Stores `count` small completed runs in the home's project through the installed package's engine; returns one run ID. */
async function storeRuns(packageDir: string, home: Home, count: number): Promise<string> {
  const kernelModule = (await import(join(packageDir, 'dist', 'kernel', 'index.js'))) as typeof import('../kernel/index.js');
  const { createKernel, WorkflowEngine, workflowsRoot } = kernelModule;
  const engine = new WorkflowEngine({ kernel: createKernel({ plugins: [] }), sessionId: 'bench-startup', root: workflowsRoot(home.home), agentDir: home.agentDir, home: home.home });
  try {
    let last = '';
    for (let index = 0; index < count; index += 1) {
      const handle = await engine.launch({ name: `stored-${index}`, cwd: home.cwd, script: `log('run ${index}');\nreturn ${index};\n`, args: null, foreground: true });
      const outcome = await handle.outcome;
      if (outcome.state !== 'completed') throw new Error(`stored run ${index} ended ${outcome.state}: ${outcome.error?.message ?? ''}`);
      last = handle.runId;
    }
    return last;
  } finally {
    await engine.close();
  }
}

const work = mkdtempSync(join(tmpdir(), 'bench-startup-'));
try {
  const packageDir = installPackage(work);
  const bare = makeHome(work, 'bare', []);
  const withPackage = makeHome(work, 'with-package', [packageDir]);
  const piPackage = join(ROOT, 'node_modules', '@earendil-works', 'pi-coding-agent');
  const pi087 = join(piPackage, (JSON.parse(readFileSync(join(piPackage, 'package.json'), 'utf8')) as { bin: { pi: string } }).bin.pi);
  if (process.env['BENCH_STARTUP_ONLY'] !== 'wfcli') {
    const piLatest = ensurePiLatest();
    const homes: PiHomes = {
      bare,
      floor: makeHome(work, 'empty-entries-home', [emptyEntriesPackage(work)]),
      resourcesFloor: makeHome(work, 'empty-entries-resources-home', [emptyEntriesPackage(work, true)]),
      withPackage,
    };
    piStarts(pi087, homes, '');
    piStarts(piLatest, homes, '_latest');
  }
  const empty = join(work, 'empty.js');
  writeFileSync(empty, '');

  // A user who runs wfcli has Pi's SDK beside the package (npm installs peer
  // dependencies); these links give the installed copy the lockfile's, after
  // the Pi starts above measured the package without them.
  const scope = join(packageDir, '..', '@earendil-works');
  mkdirSync(scope, { recursive: true });
  for (const name of ['@earendil-works/pi-coding-agent', '@earendil-works/pi-tui', 'typebox']) symlinkSync(join(ROOT, 'node_modules', name), join(packageDir, '..', name));
  const wfcli = join(packageDir, 'dist', 'cli', 'wfcli.js');
  copyFileSync(join(ROOT, 'examples', 'hello.js'), join(withPackage.cwd, 'hello.js'));
  const listed = makeHome(work, 'listed', [packageDir]);
  const runId = await storeRuns(packageDir, listed, LISTED_RUNS);
  const rows = spawnSync(process.execPath, [wfcli, 'list', '--json'], { cwd: listed.cwd, env: envOf(listed), encoding: 'utf8' }).stdout;
  if ((JSON.parse(rows) as unknown[]).length !== LISTED_RUNS) throw new Error(`wfcli list does not show the ${LISTED_RUNS} stored runs`);
  commandLoop(
    [
      { name: 'node_start', home: bare, script: empty, args: [] },
      { name: 'wfcli_help', home: withPackage, script: wfcli, args: ['--help'] },
      { name: 'wfcli_list_200', home: listed, script: wfcli, args: ['list'] },
      { name: 'wfcli_status', home: listed, script: wfcli, args: ['status', runId] },
      { name: 'pi_list_models', home: bare, script: pi087, args: ['--list-models'] },
      { name: 'wfcli_run_shell', home: withPackage, script: wfcli, args: ['run', '--script', 'hello.js'] },
    ],
    [
      ['wfcli_help', 'node_start'],
      ['wfcli_list_200', 'node_start'],
      ['wfcli_status', 'node_start'],
      ['wfcli_run_shell', 'pi_list_models'],
    ],
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
