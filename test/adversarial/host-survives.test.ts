/**
 * Issue 10's reproductions, all started from ONE long-lived host process
 * (repro-host.ts): each ends in a typed error or a correct value, the host
 * survives every one of them, and it still runs a normal workflow after.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TS_HOST_ARGV } from '../crash/shared.js';
import type { ReproCase, ReproReport } from './repro-host.js';

const HOST = fileURLToPath(new URL('./repro-host.ts', import.meta.url));

const WIDE_DEEP = `let v = []; for (let i = 0; i < 200000; i++) v.push(i % 97); for (let d = 0; d < 900; d++) v = [d, v]; return v;`;
const NOT_JSON: Record<string, string> = {
  function: '() => 1',
  'undefined member': '{ a: undefined }',
  'undefined element': '[1, undefined]',
  symbol: 'Symbol("s")',
  NaN: 'NaN',
  Infinity: '-Infinity',
  Map: 'new Map([[1, 2]])',
  Set: 'new Set([1])',
  'class instance': 'new (class Point { constructor() { this.x = 1; } })()',
  'sparse array': '[1, , 2]',
  cycle: '(() => { const o = {}; o.self = o; return o; })()',
  BigInt: '10n',
};

const CASES: ReproCase[] = [
  {
    name: 'racing, as the issue wrote it',
    script: `const step = (c) => shell(c);
const [a, b] = await Promise.all([
  shell('sleep 0.3; echo A').then(() => step('sleep 0.2; echo after-A')),
  shell('sleep 0.05; echo B').then(() => step('echo after-B')),
]);
return { a: a.stdout, b: b.stdout };`,
  },
  {
    name: 'racing, hidden from the preflight',
    script: `const step = (c) => shell(c);
const later = [() => step('echo after-A'), () => step('echo after-B')];
const [a, b] = await Promise.all([shell('sleep 0.3; echo A').then(later[0]), shell('sleep 0.05; echo B').then(later[1])]);
return { a: a.stdout, b: b.stdout };`,
  },
  { name: 'a result 5000 levels deep', script: 'let v = 0; for (let i = 0; i < 5000; i++) v = [v]; return v;' },
  { name: 'a wide and deep result under 10 MB', script: WIDE_DEEP },
  { name: 'one large allocation', script: 'const a = new Array(1e8).fill(0.5); return a.length;' },
  { name: 'an allocation loop', script: 'const a = []; for (;;) a.push(new Array(2 ** 20).fill(1));' },
  { name: 'a loop that logs while it spins', script: "while (true) { for (let k = 0; k < 1e7; k++) {} log('tick'); }" },
  { name: 'a loop that floods the log', script: "for (let i = 0; ; i++) { log('x'.repeat(4000)); await evidence('same'); }" },
  { name: 'top-level this', script: 'return [typeof this, (() => typeof this)()];' },
  { name: 'primitives through this', script: "return this.shell('echo escaped');" },
  { name: 'the call-site marker', script: 'return typeof __pi_extensible_workflows_site;' },
  { name: 'arguments at top level', script: "return arguments[0]('9:9', []);" },
  { name: 'log() of any values', script: "log(42, { a: [1n] }, undefined, () => 1); log(); return 'logged';" },
  { name: 'phase() errors are catchable', script: "try { phase(''); } catch (e) { return [e.code, e.message]; }" },
  { name: 'a time-out above 2^31-1', script: "try { await shell('true', { timeoutMs: 2 ** 31 }); } catch (e) { return e.code; }" },
  { name: 'an env name with =', script: "try { await shell('true', { env: { 'A=B': 'x' } }); } catch (e) { return e.code; }" },
  { name: 'an empty env name', script: "try { await shell('true', { env: { '': 'x' } }); } catch (e) { return e.code; }" },
  { name: 'evidence(undefined)', script: 'try { await evidence(undefined); } catch (e) { return e.code; }' },
  { name: 'evidence(fn)', script: 'try { await evidence(() => 1); } catch (e) { return e.code; }' },
  { name: 'Intl', script: 'return Intl.DateTimeFormat().resolvedOptions().timeZone;' },
  ...Object.entries(NOT_JSON).map(([what, expression]) => ({ name: `a result that is not JSON: ${what}`, script: `return ${expression};` })),
  { name: 'an argument that is not JSON', script: "try { await shell('true', { env: { A: undefined } }); } catch (e) { return e.code; }" },
  { name: 'a normal workflow after all of them', script: "const r = await shell('echo ok'); const a = await agent('hi'); return { out: r.stdout.trim(), a };" },
];

let reports: Map<string, ReproReport>;
let survived = false;
let stderr = '';
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wf-adversarial-'));
  const child = spawn(process.execPath, [...TS_HOST_ARGV, HOST, JSON.stringify({ dir, cases: CASES, watchdogMs: 4000 })], { stdio: ['ignore', 'pipe', 'pipe'] });
  reports = new Map();
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-8000)));
  const exit = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  for (const line of out.split('\n')) {
    if (line.startsWith('CASE ')) {
      const report = JSON.parse(line.slice(5)) as ReproReport;
      reports.set(report.name, report);
    }
    if (line === 'SURVIVED') survived = exit === 0;
  }
}, 240_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function report(name: string): ReproReport {
  const found = reports.get(name);
  if (!found) throw new Error(`no report for "${name}": the host died before it (survived: ${survived})\n${stderr}`);
  return found;
}

describe('issue 10 reproductions in one long-lived host', () => {
  it('the host survives all of them and still runs a normal workflow', () => {
    expect(reports.size, stderr).toBe(CASES.length);
    expect(survived).toBe(true);
    expect(report('a normal workflow after all of them')).toMatchObject({ state: 'completed', value: { out: 'ok', a: 'echo:hi' } });
  });

  it('racing calls from one site are refused: statically, or at run time before the racing call runs', () => {
    expect(report('racing, as the issue wrote it')).toMatchObject({ state: 'refused', launchError: { code: 'INVALID_SYNTAX' } });
    expect(report('racing, as the issue wrote it').launchError?.message).toContain('reached from promise callbacks of two separate chains');
    expect(report('racing, hidden from the preflight')).toMatchObject({ state: 'failed', error: { code: 'INVALID_METADATA', details: { reason: 'racing_calls' } } });
  });

  it('a result the host cannot store whole fails cleanly; a wide and deep one under 10 MB completes', () => {
    expect(report('a result 5000 levels deep')).toMatchObject({ state: 'failed', error: { code: 'RPC_LIMIT_EXCEEDED' } });
    expect(report('a result 5000 levels deep').error?.message).toContain('nested deeper than 1000 levels');
    const wide = report('a wide and deep result under 10 MB');
    expect(wide.state).toBe('completed');
    let value = wide.value as unknown[];
    for (let depth = 0; depth < 900; depth += 1) {
      expect(value[0]).toBe(899 - depth);
      value = value[1] as unknown[];
    }
    expect(value).toHaveLength(200_000);
    expect(value[98]).toBe(1);
  });

  it('memory bombs, spinning loops and log floods end the run with a typed error', () => {
    // Filling 1e8 slots of a sparse array is slow: it may burn the (short) watchdog before it fills the heap.
    expect(report('one large allocation')).toMatchObject({ state: 'failed', error: { code: 'INTERNAL_ERROR' } });
    expect(report('one large allocation').error?.details?.['reason']).toMatch(/^(memory_limit|cpu_watchdog)$/);
    expect(report('an allocation loop')).toMatchObject({ state: 'failed', error: { code: 'INTERNAL_ERROR', details: { reason: 'memory_limit' } } });
    const spin = report('a loop that logs while it spins');
    expect(spin).toMatchObject({ state: 'failed', error: { code: 'INTERNAL_ERROR', details: { reason: 'cpu_watchdog' } } });
    expect(spin.eventBytes).toBeLessThan(1024 * 1024);
    const flood = report('a loop that floods the log');
    expect(flood).toMatchObject({ state: 'failed', error: { code: 'INTERNAL_ERROR', details: { reason: 'log_limit' } } });
    expect(flood.eventBytes).toBeLessThan(32 * 1024 * 1024);
  });

  it('top-level this is undefined and reserved names are unreachable', () => {
    expect(report('top-level this')).toMatchObject({ state: 'completed', value: ['undefined', 'undefined'] });
    expect(report('primitives through this')).toMatchObject({ state: 'failed', error: { code: 'INTERNAL_ERROR' } });
    expect(report('primitives through this').error?.message).toMatch(/Cannot read properties of undefined/);
    expect(report('the call-site marker')).toMatchObject({ state: 'refused', launchError: { code: 'INVALID_SYNTAX' } });
    expect(report('arguments at top level')).toMatchObject({ state: 'refused', launchError: { code: 'INVALID_SYNTAX' } });
  });

  it('the small items: each a typed error', () => {
    // As console.log: numbers, objects and values JSON cannot say are logged, not refused.
    expect(report('log() of any values').value).toBe('logged');
    expect(report('phase() errors are catchable').value).toEqual(['INVALID_METADATA', 'phase needs a non-empty name']);
    for (const name of ['a time-out above 2^31-1', 'an env name with =', 'an empty env name', 'evidence(undefined)', 'evidence(fn)', 'an argument that is not JSON']) {
      expect(report(name), name).toMatchObject({ state: 'completed', value: 'INVALID_METADATA' });
    }
    expect(report('Intl')).toMatchObject({ state: 'refused', launchError: { code: 'INVALID_SYNTAX' } });
    for (const what of Object.keys(NOT_JSON)) {
      expect(report(`a result that is not JSON: ${what}`), what).toMatchObject({ state: 'failed', error: { code: 'INVALID_METADATA' } });
    }
  });
});
