/**
 * Runs the edge worker locally: bundles relay/worker/worker.ts into one ES
 * module and serves it with Miniflare (workerd) on 127.0.0.1, for the tests,
 * the bench (which also reads workerd's memory and CPU from /proc) and
 * `node relay/worker/dev.ts`.
 *
 * The bundle is made from the TypeScript sources, not from the tsc output in
 * build/, so it is always the code under test: rollup reads each `.ts` file
 * through `node:module`'s `stripTypeScriptTypes` (Node >= 22.13; the project's
 * TypeScript is erasable-only), with no build step to forget and no stale
 * build/ to test by mistake. The deployable bundle for wrangler comes from
 * `npm run build` instead (docs/relay-worker.md).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { rollup, type Plugin } from 'rollup';
import { isRelayPolicyError, parsePolicy, POLICY_DEFAULTS } from '../core/index.js';
import { isMainModule, parsePort } from '../node/run.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ENTRY = resolve(HERE, 'worker.ts');
const SHARE_APP_MODULE = resolve(HERE, 'share-app.ts');
const SHARE_APP_ENTRY = resolve(HERE, '../share/app.ts');
const WRANGLER_TOML = resolve(HERE, '../../wrangler.toml');

export interface WorkerBridgeOptions {
  /** Policy variables, as `[vars]` in wrangler.toml; validated before workerd starts. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Default: a free port. */
  readonly port?: number;
  /** The worker's console output, one call per line. Default: warnings and errors go to stderr. */
  readonly onLog?: (level: string, message: string) => void;
}

export interface WorkerBridge {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The workerd process serving it (Linux, from /proc; `undefined` elsewhere), for {@link processStats}. */
  readonly pid: number | undefined;
  close(): Promise<void>;
}

/** Resolves `./x.js` imports to the `./x.ts` source beside them and strips the types on load. */
function typeScriptSources(): Plugin {
  return {
    name: 'relay-worker-typescript',
    resolveId(source, importer) {
      if (importer === undefined || !source.startsWith('.') || !source.endsWith('.js')) return null;
      const candidate = resolve(dirname(importer), `${source.slice(0, -3)}.ts`);
      return existsSync(candidate) ? candidate : null;
    },
    load(id) {
      return id.endsWith('.ts') ? stripTypeScriptTypes(readFileSync(id, 'utf8'), { mode: 'strip' }) : null;
    },
  };
}

/** One ES module from a TypeScript entry; any import that is not a relay/ source fails the bundle. */
async function bundle(entry: string, plugins: Plugin[] = []): Promise<string> {
  const build = await rollup({
    input: entry,
    plugins: [...plugins, typeScriptSources()],
    onwarn(warning, warn) {
      if (warning.code === 'UNRESOLVED_IMPORT') throw new Error(`relay worker bundle: ${warning.message} (only relay/ sources may be imported)`);
      warn(warning);
    },
  });
  try {
    const { output } = await build.generate({ format: 'es' });
    const [chunk, ...rest] = output;
    if (chunk === undefined || rest.length > 0) throw new Error(`relay worker bundle: ${entry} did not make exactly one chunk`);
    return chunk.code;
  } finally {
    await build.close();
  }
}

/** Replaces relay/worker/share-app.ts with the share app's bundle as a string. */
function embedShareApp(script: string): Plugin {
  return {
    name: 'relay-worker-share-app',
    load: (id) => (id === SHARE_APP_MODULE ? `export const SHARE_APP_SCRIPT = ${JSON.stringify(script)};` : null),
  };
}

let bundled: Promise<string> | undefined;

/**
 * The worker as one ES module with the share app embedded, bundled once per
 * process. The worker and the core may import nothing but relay/ sources,
 * which keeps them runtime-neutral.
 */
export function bundleWorker(): Promise<string> {
  bundled ??= bundle(SHARE_APP_ENTRY).then((script) => bundle(ENTRY, [embedShareApp(script)]));
  bundled.catch(() => {
    bundled = undefined;
  });
  return bundled;
}

/** The compatibility date of wrangler.toml, so the local runtime matches the deployed one. */
function compatibilityDate(): string {
  const match = /^compatibility_date\s*=\s*"([0-9]{4}-[0-9]{2}-[0-9]{2})"/m.exec(readFileSync(WRANGLER_TOML, 'utf8'));
  if (match?.[1] === undefined) throw new Error(`${WRANGLER_TOML}: no compatibility_date`);
  return match[1];
}

function defaultLog(level: string, message: string): void {
  if (level === 'warn' || level === 'error') process.stderr.write(`[relay worker] ${message}\n`);
}

/** Starts the edge worker under Miniflare; throws a `RelayPolicyError` naming an invalid variable. */
export async function startWorkerBridge(options: WorkerBridgeOptions = {}): Promise<WorkerBridge> {
  const bindings: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.env ?? {})) if (value !== undefined) bindings[name] = value;
  parsePolicy(bindings);
  const onLog = options.onLog ?? defaultLog;
  const { mf, url, pid } = await startMiniflare({
    modules: true,
    script: await bundleWorker(),
    compatibilityDate: compatibilityDate(),
    durableObjects: { ROOMS: { className: 'RoomObject', useSQLite: true } },
    bindings,
    host: '127.0.0.1',
    port: options.port ?? 0,
    handleStructuredLogs: (log: { level: string; message: string }): void => {
      onLog(log.level, log.message);
    },
  });
  return { url: url.origin, pid, close: () => mf.dispose() };
}

/**
 * Starts Miniflare with these options and finds the workerd process it
 * spawned (the new `workerd` child of this process). The bench also starts a
 * bare Durable Object through it, as the runtime's own cost per socket.
 */
export async function startMiniflare(options: ConstructorParameters<typeof Miniflare>[0]): Promise<{ mf: Miniflare; url: URL; pid: number | undefined }> {
  const before = workerdChildren();
  const mf = new Miniflare(options);
  try {
    const url = await mf.ready;
    const spawned = [...workerdChildren()].filter((pid) => !before.has(pid));
    return { mf, url, pid: spawned.length === 1 ? spawned[0] : undefined };
  } catch (error) {
    await mf.dispose().catch(() => undefined);
    throw error;
  }
}

/** PIDs of this process's `workerd` children (Linux; empty elsewhere). */
function workerdChildren(): Set<number> {
  const found = new Set<number>();
  if (!existsSync('/proc/self/stat')) return found;
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      if (comm === 'workerd' && ppid === process.pid) found.add(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/**
 * A process's resident memory (KB, `VmRSS`) and CPU time used so far (ms,
 * user + system) from /proc: how the bench measures workerd from outside,
 * since a Durable Object cannot report its runtime's memory.
 */
export function processStats(pid: number): { rssKb: number; cpuMs: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = /^VmRSS:\s+([0-9]+) kB$/m.exec(status);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (rss?.[1] === undefined || !Number.isFinite(ticks)) throw new Error(`/proc/${pid}: unexpected format`);
  return { rssKb: Number(rss[1]), cpuMs: ticks * 10 };
}

/**
 * `node --import ./scripts/ts-resolve.mjs relay/worker/dev.ts`: serves the
 * worker on 127.0.0.1:PORT (default 8787) with the policy variables of the
 * environment until SIGINT or SIGTERM.
 */
async function main(): Promise<number> {
  const env = Object.fromEntries(Object.keys(POLICY_DEFAULTS).map((name) => [name, process.env[name]]));
  let bridge: WorkerBridge;
  try {
    bridge = await startWorkerBridge({ env, port: parsePort(process.env['PORT']) });
  } catch (error) {
    process.stderr.write(`relay worker: ${error instanceof Error ? error.message : String(error)}\n`);
    return isRelayPolicyError(error) ? 2 : 1;
  }
  process.stdout.write(`relay worker listening on ${bridge.url}\n`);
  await new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await bridge.close();
  return 0;
}

if (isMainModule(import.meta.url)) process.exitCode = await main();
