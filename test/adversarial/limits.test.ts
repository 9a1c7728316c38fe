/**
 * Issue 24 item 4, through the real `wfcli` process (fresh HOME): inputs
 * that used to amplify into gigabytes or a stack overflow end in typed errors
 * naming their source and limit, and the host stays up. Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { piEnv, WFCLI, type PiResult } from '../e2e/support/pi-cli.js';
import { createCliHome, readJson, type CliHome } from './cli-home.js';

let home: CliHome;
let preload: string;
beforeAll(async () => {
  home = await createCliHome();
  // Reports the host process's own peak resident set as it exits.
  preload = join(home.pi.home, 'max-rss.cjs');
  writeFileSync(preload, "process.on('exit', () => require('node:fs').writeSync(2, `\\nMAXRSS_KB ${process.resourceUsage().maxRSS}\\n`));\n");
});
afterAll(async () => {
  await home?.close();
});

const deepObject = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** `wfcli <args>` with its peak RSS in MB (the host only: the sandbox and the preflight child are processes of their own). */
async function measured(args: readonly string[]): Promise<PiResult & { maxRssMb: number }> {
  const child = spawn(process.execPath, ['--require', preload, WFCLI, ...args], { cwd: home.pi.cwd, env: piEnv(home.pi), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (data: string) => (stdout += data));
  child.stderr.setEncoding('utf8').on('data', (data: string) => (stderr += data));
  const guard = setTimeout(() => child.kill("SIGKILL"), 100_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('close', (c, s) => resolve([c, s])));
  clearTimeout(guard);
  const kb = Number(/MAXRSS_KB (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
  return { code, signal, stdout, stderr, maxRssMb: kb / 1024 };
}

describe('JSON inputs: typed errors naming the source, never a stack overflow', () => {
  it('--input nested 6,000 levels is RPC_LIMIT_EXCEEDED naming --input, before Pi starts', async () => {
    const result = await home.wfcli(['run', '--script', home.script('one.js', 'return args;'), '--input', deepObject(6000)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^RPC_LIMIT_EXCEEDED: --input\.a\.a\.a.*is nested deeper than 1000 levels$/m);
    expect(result.stderr).not.toMatch(/Maximum call stack|INTERNAL_ERROR/);
  });

  it('an extensionSettings value nested 6,000 levels is CONFIG_ERROR naming the settings file', async () => {
    home.settings(`{"extensionSettings":{"someExtension":${deepObject(6000)}}}`);
    try {
      const result = await home.wfcli(['run', '--script', home.script('one.js', 'return args;')]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/CONFIG_ERROR: Settings file \S+pi-extensible-workflows\/settings\.json: the value\.extensionSettings\.someExtension\.a\.a.*is nested deeper than 1000 levels/);
      expect(result.stderr).not.toMatch(/Maximum call stack|INTERNAL_ERROR/);
    } finally {
      home.settings({});
    }
  });

  it('a registered function output nested 5,000 levels is RPC_LIMIT_EXCEEDED naming the function', async () => {
    const script = "try { await deepOutput({}); return 'accepted'; } catch (e) { return e.code + ': ' + e.message; }";
    const result = await home.wfcli(['run', '--script', home.script('deep-output.js', script)]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatch(/^RPC_LIMIT_EXCEEDED: The output of function deepOutput\[0\]\[0\].* is nested deeper than 1000 levels$/);
  });
});

describe('amplification: bounded before it happens', () => {
  it('evidence of a 0.4 MB value nested 990 levels is RPC_LIMIT_EXCEEDED naming the 10 MB limit; nothing is written; the host stays small', async () => {
    // 200,000 digits at the bottom of a 990-level chain: 0.4 MB as compact JSON, about 400 MB indented.
    const script = `let v = Array.from({ length: 200000 }, (_, i) => i % 10);
for (let d = 0; d < 990; d++) v = [v];
try { await evidence(v); return 'stored'; } catch (e) { return e.code + ': ' + e.message; }`;
    const result = await measured(['run', '--script', home.script('evidence-deep.js', script)]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatch(/^RPC_LIMIT_EXCEEDED: The evidence content as indented JSON\[0\]\[0\].* exceeds the 10485760-byte limit$/);
    const runDir = home.runDir(home.runIdOf(result));
    expect(readdirSync(join(runDir, 'evidence'))).toEqual([]);
    // 927 MB before; the bound is generous for a loaded machine, far below that.
    expect(result.maxRssMb).toBeLessThan(500);
  });

  it('a 6.6 MB script is INVALID_SYNTAX naming its size and the 1 MiB limit, refused before parsing; the host stays small', async () => {
    const lines: string[] = [];
    for (let i = 0, bytes = 0; bytes < 6.6 * 1024 * 1024; i += 1) {
      const line = `log('line ${i}');\n`;
      lines.push(line);
      bytes += line.length;
    }
    const result = await measured(['run', '--script', home.script('huge.js', lines.join(''))]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^INVALID_SYNTAX: The workflow script is 69\d{5} bytes; the limit is 1048576 \(1 MiB\)\. Move data out of the source/m);
    // 1.7 GB before.
    expect(result.maxRssMb).toBeLessThan(500);
    expect(result.stderr).not.toMatch(/^run wf-/m);
  });

  it('a script nested 20,000 brackets deep (40 KB) is INVALID_SYNTAX: too deeply nested; the parser cannot crash the host', async () => {
    const result = await home.wfcli(['run', '--script', home.script('nested.js', `return ${'['.repeat(20000)}${']'.repeat(20000)};`)]);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^INVALID_SYNTAX: The workflow script is nested too deeply to check \(.*\); flatten the nesting$/m);
  });

  it('an arrow chain 5,000 deep (15 KB, no brackets) is refused the same way', async () => {
    const result = await home.wfcli(['run', '--script', home.script('arrows.js', `return ${'a=>'.repeat(5000)}1;`)]);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^INVALID_SYNTAX: The workflow script is nested too deeply to check/m);
  });

  it('after all of them the same HOME still runs a normal workflow', async () => {
    const result = await home.wfcli(['run', '--script', home.script('normal.js', "const r = await shell('echo ok'); return r.stdout.trim();")]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toBe('ok');
    expect(readJson(join(home.runDir(home.runIdOf(result)), 'snapshot.json'))).toMatchObject({ state: 'completed' });
  });
});
