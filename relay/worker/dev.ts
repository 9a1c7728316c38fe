/**
 * Runs the edge worker locally: bundles relay/worker/worker.ts into one ES
 * module and serves it with Miniflare (workerd) on 127.0.0.1. Used by the
 * tests and the bench; runs from the TypeScript sources (Node ≥ 22.13 type
 * stripping), not from build/.
 *
 * The bundle is made from the sources, not from the tsc output in build/, so
 * it is always the code under test: rollup reads each `.ts` file through
 * `node:module`'s `stripTypeScriptTypes` (the project's TypeScript is
 * erasable-only, `erasableSyntaxOnly`), with no build step to forget and no
 * stale build/ to test by mistake. The deployable bundle for wrangler is made
 * by `npm run build` instead (docs/relay-worker.md).
 */
import { existsSync, readFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { rollup, type Plugin } from 'rollup';
import { parsePolicy } from '../core/index.js';
import { measureRelayThroughput, type ThroughputResult } from './throughput.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ENTRY = resolve(HERE, 'worker.ts');
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

let bundled: Promise<string> | undefined;

/**
 * The worker as one ES module, bundled once per process. Any import rollup
 * cannot resolve to a source file (a package, a `node:` builtin) fails the
 * bundle: the worker and the core must stay runtime-neutral.
 */
export function bundleWorker(): Promise<string> {
  bundled ??= (async () => {
    const build = await rollup({
      input: ENTRY,
      plugins: [typeScriptSources()],
      onwarn(warning, warn) {
        if (warning.code === 'UNRESOLVED_IMPORT') throw new Error(`relay worker bundle: ${warning.message} (the worker may import only relay/ sources)`);
        warn(warning);
      },
    });
    try {
      const { output } = await build.generate({ format: 'es' });
      const [chunk, ...rest] = output;
      if (chunk === undefined || rest.length > 0) throw new Error('relay worker bundle: expected exactly one chunk');
      return chunk.code;
    } finally {
      await build.close();
    }
  })();
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
  const mf = new Miniflare({
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
  let url: URL;
  try {
    url = await mf.ready;
  } catch (error) {
    await mf.dispose().catch(() => undefined);
    throw error;
  }
  return { url: url.origin, close: () => mf.dispose() };
}

/**
 * `BENCH relay_worker_msgs_per_s`: Consumer → Authority relay messages per
 * second through a local worker (rate limits lifted so the bridge, not the
 * policy, is measured).
 */
export async function measureWorkerThroughput(options: { readonly messages?: number } = {}): Promise<ThroughputResult> {
  const bridge = await startWorkerBridge({ env: { RATE_LIMIT_PER_SECOND: '1000000000', RATE_LIMIT_BURST: '1000000000' } });
  try {
    return await measureRelayThroughput(bridge.url, options);
  } finally {
    await bridge.close();
  }
}
