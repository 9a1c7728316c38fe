/**
 * Preflight limit benchmarks (`npm run bench:preflight-limits`): what checking a script
 * costs the host. Prints one line per figure:
 *
 *   BENCH <name> <value> <unit>
 *
 * preflight_limit_1mb_ms               engine.inspect() of a script at the size limit (1 MiB of `log('line N');`
 *                                      statements, some 60,000 call sites), median of 3
 * preflight_limit_1mb_host_rss_mb      the host's peak resident-set growth during it (its syntax tree lives in the
 *                                      preflight's child process), median of 3
 * preflight_limit_rss_per_source_mb    that growth per MB of source
 * preflight_limit_refusal_ms           a 6.6 MB script refused with INVALID_SYNTAX before it is parsed
 * preflight_limit_small_ms             engine.inspect() of a 2 KB script (in-process), median of 20
 *
 * Each figure is measured in a fresh process (`node bench/preflight-limits.ts --measure <kind>`), so the peak
 * resident set it reads (process.resourceUsage().maxRSS) starts from an idle engine. Target: the host's
 * growth a small multiple of the source (it was about 250 times the source before the preflight moved
 * out of the host: 1.7 GB for a 6.6 MB script). Measures the built package (`npm run build` first).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

type Kind = 'limit' | 'over' | 'small';

/** `bytes` of `log('line N');` statements. */
function logLines(bytes: number): string {
  const lines: string[] = [];
  for (let index = 0, total = 0; total < bytes - 32; index += 1) {
    const line = `log('line ${index}');\n`;
    lines.push(line);
    total += line.length;
  }
  return lines.join('');
}

const SOURCES: Record<Kind, () => string> = {
  limit: () => logLines(1024 * 1024),
  over: () => logLines(6.6 * 1024 * 1024),
  small: () => `phase('build');\nconst r = await shell('make');\n${logLines(2000)}return r.stdout;\n`,
};

async function measure(kind: Kind): Promise<void> {
  const built = '../dist/kernel/index.js';
  const { createKernel, WorkflowEngine } = (await import(built)) as typeof import('../kernel/index.js');
  const home = fs.mkdtempSync(join(tmpdir(), 'wf-bench-preflight-'));
  const engine = new WorkflowEngine({ kernel: createKernel({ plugins: [] }), sessionId: 'bench', root: join(home, 'root'), agentDir: join(home, 'agent'), home });
  const source = SOURCES[kind]();
  const repeat = kind === 'small' ? 20 : 1;
  const times: number[] = [];
  const before = process.resourceUsage().maxRSS;
  for (let round = 0; round < repeat; round += 1) {
    // A new text each round: the engine keeps its last result for the same source.
    const text = `${source}// ${round}\n`;
    const started = performance.now();
    try {
      engine.inspect(text);
    } catch (error) {
      if (kind !== 'over' || (error as { code?: string }).code !== 'INVALID_SYNTAX') throw error;
    }
    times.push(performance.now() - started);
  }
  const growth = (process.resourceUsage().maxRSS - before) / 1024;
  await engine.close();
  fs.rmSync(home, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify({ ms: median(times), rssMb: growth, sourceMb: Buffer.byteLength(source) / 1024 / 1024 })}\n`);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function report(name: string, value: number, unit: string): void {
  console.log(`BENCH ${name} ${value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2)} ${unit}`);
}

function run(kind: Kind): { ms: number; rssMb: number; sourceMb: number } {
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--measure', kind], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (child.status !== 0) throw new Error(`bench/preflight-limits.ts --measure ${kind} exited ${child.status ?? child.signal}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '') as { ms: number; rssMb: number; sourceMb: number };
}

if (process.argv[2] === '--measure') await measure(process.argv[3] as Kind);
else {
  const limit = [run('limit'), run('limit'), run('limit')];
  const ms = median(limit.map((entry) => entry.ms));
  const rss = median(limit.map((entry) => entry.rssMb));
  report('preflight_limit_1mb_ms', ms, 'ms');
  report('preflight_limit_1mb_host_rss_mb', rss, 'MB');
  report('preflight_limit_rss_per_source_mb', rss / (limit[0]?.sourceMb ?? 1), 'MB/MB');
  report('preflight_limit_refusal_ms', run('over').ms, 'ms');
  report('preflight_limit_small_ms', run('small').ms, 'ms');
}
