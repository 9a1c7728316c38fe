/**
 * Escape attempts through the whole path a script takes (preflight, then
 * the sandbox process): each is refused at launch or fails with a typed
 * error, none returns a capability. Below that, the sandbox process itself
 * runs under Node's permission model: even code that escaped the ses
 * Compartment could not read or write files, start processes or workers.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_LIMITS } from '../../kernel/sandbox/pool.js';
import { permissionFlag, sandboxLaunch } from '../../kernel/sandbox/launch.js';
import { createHarness, type Harness } from '../support/engine-harness.js';

let h: Harness;
beforeAll(() => {
  h = createHarness({ sandbox: { watchdogMs: 2000 } });
});
afterAll(() => h.close());

const ATTEMPTS: Record<string, string> = {
  'this.constructor': "return this.constructor.constructor('return process')();",
  'async function constructor': "return (async function () {}).constructor('return process')();",
  'generator constructor': "return Object.getPrototypeOf(function* () {}).constructor('return 1')().next();",
  'array constructor chain': "return [].constructor.constructor('return globalThis')();",
  'error constructor chain': "try { null.x; } catch (e) { return e.constructor.constructor('return process')(); }",
  'args constructor chain': "return args.constructor.constructor('return process')();",
  'prototype pollution': 'Object.prototype.polluted = 1; return {}.polluted;',
  'builtin mutation': 'JSON.parse = () => 1; return JSON.parse("2");',
  'globalThis': 'return globalThis;',
  'process': 'return process.env;',
  'require': "return require('fs');",
  'dynamic import': "return await import('node:fs');",
  'eval': "return eval('1 + 1');",
  'Function': "return Function('return 1')();",
  'reserved marker': 'return __pi_extensible_workflows_site("1:1", []);',
  'date and randomness': 'return [Date.now(), Math.random()];',
  'a proxy result': 'return new Proxy({}, { ownKeys() { throw new Error("boom"); } });',
  'a result over 10 MB': "return 'x'.repeat(11 * 1024 * 1024);",
};

describe('escape attempts through the engine', () => {
  it.each(Object.entries(ATTEMPTS))('%s is refused or fails with a typed error', async (_name, script) => {
    let outcome: Awaited<ReturnType<Harness['run']>> | undefined;
    try {
      outcome = await h.run(script);
    } catch (error) {
      expect((error as { code?: string }).code).toBe('INVALID_SYNTAX');
      return;
    }
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toMatch(/^(INTERNAL_ERROR|INVALID_METADATA|RPC_LIMIT_EXCEEDED)$/);
  });
});

describe('the sandbox process runs under the permission model', () => {
  it("names the permission flag this Node accepts, as Node's own list of flags does, and each release line's", () => {
    const flags = process.allowedNodeEnvironmentFlags;
    const asked = flags.has('--permission') ? '--permission' : flags.has('--experimental-permission') ? '--experimental-permission' : undefined;
    expect(permissionFlag()).toBe(asked);
    const byVersion = Object.fromEntries(['v18.20.0', '20.0.0', '21.7.3', '22.12.0', '22.13.0', '22.19.0', '23.4.0', '23.5.0', '24.0.0', 'garbage'].map((version) => [version, permissionFlag(version)]));
    expect(byVersion).toEqual({
      'v18.20.0': undefined,
      '20.0.0': '--experimental-permission',
      '21.7.3': '--experimental-permission',
      '22.12.0': '--experimental-permission',
      '22.13.0': '--permission',
      '22.19.0': '--permission',
      '23.4.0': '--experimental-permission',
      '23.5.0': '--permission',
      '24.0.0': '--permission',
      garbage: undefined,
    });
  });

  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wf-permission-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('denies reading other files, writing, processes and workers', () => {
    const probe = join(dir, 'probe.mjs');
    writeFileSync(
      probe,
      `import fs from 'node:fs';
const attempt = async (fn) => { try { await fn(); return 'allowed'; } catch (error) { return error.code ?? error.message; } };
const results = {
  read: await attempt(() => fs.readFileSync('/etc/hostname')),
  readPackage: await attempt(() => fs.readFileSync(${JSON.stringify(join(process.cwd(), 'package.json'))})),
  write: await attempt(() => fs.writeFileSync(${JSON.stringify(join(dir, 'written'))}, 'x')),
  spawn: await attempt(async () => (await import('node:child_process')).execSync('true')),
  worker: await attempt(async () => new (await import('node:worker_threads')).Worker('1', { eval: true })),
};
process.stdout.write(JSON.stringify(results));`,
    );
    const launch = sandboxLaunch(DEFAULT_SANDBOX_LIMITS.maxOldGenerationSizeMb);
    // The sandbox's own command line, with the probe in place of the worker file.
    const args = [...launch.args.slice(0, -1).filter((arg) => !arg.startsWith('--import') && !arg.startsWith('file:')), probe];
    const result = spawnSync(launch.command, args, { encoding: 'utf8', env: {} });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ read: 'ERR_ACCESS_DENIED', readPackage: 'ERR_ACCESS_DENIED', write: 'ERR_ACCESS_DENIED', spawn: 'ERR_ACCESS_DENIED', worker: 'ERR_ACCESS_DENIED' });
    expect(launch.args).toContain('--permission');
    expect(launch.args.some((arg) => arg.startsWith('--max-old-space-size='))).toBe(true);
  });

  it('starts from an installed package whose node_modules is a symbolic link', () => {
    // A package copy that links the dependencies of another (as test/build/leave-out.test.ts builds one).
    const root = join(dir, 'linked');
    mkdirSync(join(root, 'dist', 'kernel', 'sandbox'), { recursive: true });
    mkdirSync(join(root, 'dist', 'chunks'));
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'pi-extensible-workflows', type: 'module' }));
    // ses as the worker loads it (kernel/sandbox/load-ses.ts): its require build, resolved through the link.
    writeFileSync(join(root, 'dist', 'kernel', 'sandbox', 'worker.js'), "import { createRequire } from 'node:module';\ncreateRequire(import.meta.url)('ses');\nprocess.stdout.write(typeof lockdown);");
    symlinkSync(resolve('node_modules'), join(root, 'node_modules'), 'dir');
    const launch = sandboxLaunch(DEFAULT_SANDBOX_LIMITS.maxOldGenerationSizeMb, pathToFileURL(join(root, 'dist', 'chunks', 'launch.js')).href);
    const result = spawnSync(launch.command, launch.args, { encoding: 'utf8', env: {} });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('function');
    expect(launch.args).toContain('--permission');
  });
});
