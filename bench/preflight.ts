/**
 * bench:preflight: how long the static preflight (kernel/preflight) takes on
 * a 200-line workflow script in the shapes models write: literal meta, a
 * default function, phases, parallel fan-out over thunks, named pipeline
 * stages, loops with awaited agents, prompts, shell checks, helpers. Target:
 * preflight_200_lines_ms < 20 (median of warm runs; the launch pays it once,
 * twice with the engine's own compile).
 *
 *   BENCH preflight_200_lines_ms <median> ms
 *   BENCH preflight_200_lines_p90_ms <p90> ms
 *   BENCH preflight_200_lines_cold_ms <first run, parser loading included> ms
 *   BENCH preflight_200_lines_cpu_ms <process CPU time per warm run> ms
 *
 * Node runs this file with type stripping; the resolve hook maps `.js` imports to `.ts` sources.
 */
import '../scripts/ts-resolve.mjs';

const { preflight } = await import('../kernel/preflight/index.js');

const REPEAT = Number(process.env['BENCH_PREFLIGHT_REPEAT'] ?? 100);
const OPTIONS = {
  primitives: ['agent', 'shell', 'prompt', 'parallel', 'pipeline', 'phase', 'log', 'args', 'evidence', 'checkpoint', 'withWorktree', 'tools'],
  functions: ['reviewLoop'],
  effects: ['evidence', 'checkpoint', 'withWorktree'],
};

/** One 19-line section of the script; `n` keeps names apart. */
function section(n: number): string[] {
  return [
    `  phase('area ${n}');`,
    `  const files${n} = (await shell('git ls-files src/area${n}')).stdout.trim().split('\\n').filter(Boolean);`,
    `  const found${n} = await parallel('scan-${n}', files${n}.map((file) => () =>`,
    `    agent(prompt('Audit {file} for unchecked errors; list each with its line.', { file }), {`,
    `      label: \`scan \${file}\`,`,
    `      outputSchema: { type: 'object', required: ['issues'], properties: { issues: { type: 'array', items: { type: 'string' } } } },`,
    `    }),`,
    `  ));`,
    `  const issues${n} = found${n}.flatMap((entry) => entry.issues);`,
    `  const checked${n} = await pipeline('verify-${n}', issues${n}, {`,
    `    refute: (issue) => agent(prompt('Try to refute: {issue}', { issue }), { outputSchema: VERDICT }),`,
    `    keep: (verdict, key) => (verdict.real ? issues${n}[Number(key)] : null),`,
    `  });`,
    `  for (const issue of checked${n}.filter(Boolean)) {`,
    `    const fix = await agent(prompt('Fix this issue with the smallest change:\\n{issue}', { issue }), { label: 'fix ${n}' });`,
    `    log(\`fixed: \${summarize(fix)}\`);`,
    `  }`,
    `  const tests${n} = await shell('npm test -- area${n}', { timeoutMs: 600000 });`,
    `  results.push({ area: ${n}, issues: issues${n}.length, passed: tests${n}.exitCode === 0 });`,
  ];
}

function script(): string {
  const lines = [
    "export const meta = { name: 'area-audit', description: 'Audit, verify and fix each area, then report', phases: [{ title: 'Scan' }] };",
    '',
    "const VERDICT = { type: 'object', required: ['real'], properties: { real: { type: 'boolean' } } };",
    'const summarize = (text) => (text.length > 80 ? `${text.slice(0, 77)}...` : text);',
    '',
    'export default async function main(input) {',
    '  const results = [];',
  ];
  for (let n = 1; n <= 10; n += 1) lines.push(...section(n));
  lines.push(
    "  const report = await agent(prompt('Write the audit report:\\n{results}', { results }), { label: 'report' });",
    '  return { results, report, areas: input.areas ?? 10 };',
    '}',
  );
  return `${lines.join('\n')}\n`;
}

const source = script();
const lineCount = source.split('\n').length - 1;
if (lineCount < 195 || lineCount > 205) throw new Error(`the benchmark script has ${lineCount} lines, not about 200`);

const time = (): number => {
  const started = performance.now();
  preflight(source, OPTIONS);
  return performance.now() - started;
};

const cold = time();
const warm: number[] = [];
const cpuStart = process.cpuUsage();
for (let i = 0; i < REPEAT; i += 1) warm.push(time());
const cpu = process.cpuUsage(cpuStart);
warm.sort((a, b) => a - b);
const at = (q: number): number => warm[Math.min(warm.length - 1, Math.floor((warm.length - 1) * q))] ?? 0;
console.log(`BENCH preflight_200_lines_ms ${at(0.5).toFixed(2)} ms`);
console.log(`BENCH preflight_200_lines_p90_ms ${at(0.9).toFixed(2)} ms`);
console.log(`BENCH preflight_200_lines_cold_ms ${cold.toFixed(1)} ms`);
// CPU time of this process per preflight (garbage collection included): what it costs when other processes load the machine.
console.log(`BENCH preflight_200_lines_cpu_ms ${((cpu.user + cpu.system) / 1000 / REPEAT).toFixed(2)} ms`);
