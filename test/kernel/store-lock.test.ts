import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isWorkflowError } from '../../kernel/errors.js';
import { acquireRunLock, createRunDirectory, readRunLock } from '../../kernel/store/index.js';

const repo = path.resolve(import.meta.dirname, '..', '..');
let compiled: string;
let storeUrl: string;
let root: string;
let runDir: string;
let lockPath: string;

/** Compiles the store and the kernel files it imports to plain JS, so a child `node` can use the real lock code. */
function compileStore(outDir: string): string {
  const files = [
    ...fs.readdirSync(path.join(repo, 'kernel', 'store')).map((name) => path.join('kernel', 'store', name)),
    path.join('kernel', 'errors.ts'),
    path.join('kernel', 'process-identity.ts'),
    path.join('kernel', 'json.ts'),
    path.join('kernel', 'json-encode.ts'),
    path.join('kernel', 'states.ts'),
  ].filter((file) => file.endsWith('.ts'));
  for (const file of files) {
    const output = ts.transpileModule(fs.readFileSync(path.join(repo, file), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    }).outputText;
    const target = path.join(outDir, file.replace(/\.ts$/, '.js'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, output);
  }
  fs.writeFileSync(path.join(outDir, 'package.json'), '{"type":"module"}');
  return pathToFileURL(path.join(outDir, 'kernel', 'store', 'index.js')).href;
}

function childScript(body: string): string {
  return `import { acquireRunLock } from ${JSON.stringify(storeUrl)};\n${body}`;
}

function errorOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (isWorkflowError(error)) return error;
    throw error;
  }
  throw new Error('expected a throw');
}

beforeAll(() => {
  compiled = fs.mkdtempSync(path.join(os.tmpdir(), 'store-lock-js-'));
  storeUrl = compileStore(compiled);
});

afterAll(() => {
  fs.rmSync(compiled, { recursive: true, force: true });
});

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'store-lock-'));
  runDir = createRunDirectory({ root, cwd: '/work/p', sessionId: 's', runId: 'run-7', source: '', snapshot: { runId: 'run-7' } });
  lockPath = path.join(runDir, 'run.lock');
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe('acquireRunLock', () => {
  it('writes { pid, startedAt } with mode 0600 and removes it on release', () => {
    const release = acquireRunLock(runDir);
    const content: unknown = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
    expect(content).toMatchObject({ pid: process.pid });
    expect(typeof (content as { startedAt: unknown }).startedAt).toBe('string');
    expect(fs.statSync(lockPath).mode & 0o777).toBe(0o600);
    expect(readRunLock(runDir)?.pid).toBe(process.pid);
    release();
    release();
    expect(fs.existsSync(lockPath)).toBe(false);
    expect(readRunLock(runDir)).toBeUndefined();
    expect(fs.readdirSync(runDir).filter((name) => name.includes('lock'))).toEqual([]);
  });

  it('is exclusive while the owner lives, also within one process', () => {
    const release = acquireRunLock(runDir);
    const error = errorOf(() => acquireRunLock(runDir));
    expect(error.code).toBe('RESUME_INCOMPATIBLE');
    expect(error.message).toBe(`run run-7 is active in process ${process.pid}`);
    release();
    acquireRunLock(runDir)();
  });

  it('refuses a lock held by a live child process, then takes it once the child has exited', async () => {
    const child = spawn(process.execPath, [
      '--input-type=module',
      '-e',
      childScript(`acquireRunLock(${JSON.stringify(runDir)}); process.stdout.write('locked'); setInterval(() => {}, 1000);`),
    ]);
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`child exited early with ${code}`)));
    });
    try {
      const error = errorOf(() => acquireRunLock(runDir));
      expect(error.code).toBe('RESUME_INCOMPATIBLE');
      expect(error.message).toBe(`run run-7 is active in process ${child.pid}`);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    const release = acquireRunLock(runDir);
    expect(JSON.parse(fs.readFileSync(lockPath, 'utf8'))).toMatchObject({ pid: process.pid });
    release();
  });

  it('takes over the lock of a crashed host: a child that locked and exited without releasing', () => {
    const result = spawnSync(process.execPath, [
      '--input-type=module',
      '-e',
      childScript(`acquireRunLock(${JSON.stringify(runDir)}); process.stdout.write(String(process.pid)); process.exit(0);`),
    ], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    const childPid = Number(result.stdout);
    expect(JSON.parse(fs.readFileSync(lockPath, 'utf8'))).toMatchObject({ pid: childPid });
    expect(readRunLock(runDir)).toBeUndefined();
    const release = acquireRunLock(runDir);
    expect(JSON.parse(fs.readFileSync(lockPath, 'utf8'))).toMatchObject({ pid: process.pid });
    release();
    expect(fs.readdirSync(runDir).filter((name) => name.includes('lock'))).toEqual([]);
  });

  it('treats an unreadable lock file as stale', () => {
    fs.writeFileSync(lockPath, 'garbage');
    const release = acquireRunLock(runDir);
    expect(JSON.parse(fs.readFileSync(lockPath, 'utf8'))).toMatchObject({ pid: process.pid });
    release();
  });

  it('does not remove a lock that another owner took over after us', () => {
    const release = acquireRunLock(runDir);
    fs.writeFileSync(lockPath, JSON.stringify({ pid: 999_999_999, startedAt: 'later' }));
    release();
    expect(fs.existsSync(lockPath)).toBe(true);
  });

  it('reports a missing run as RUN_NOT_FOUND', () => {
    expect(errorOf(() => acquireRunLock(path.join(root, 'nope'))).code).toBe('RUN_NOT_FOUND');
  });
});
