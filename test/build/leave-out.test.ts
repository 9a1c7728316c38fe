/**
 * A feature plugin can be left out of the package itself: a temporary copy
 * of the sources and of tsc's output in build/ (node_modules symlinked, not
 * copied) without plugins/worktrees bundles with rollup, and the real `pi`
 * CLI loads its host entry. (That nothing else imports the plugin is
 * boundaries.test.ts's check, so the copy is not compiled again.) Its
 * `pi.extensions` still lists the worktrees entry, which Pi skips as missing;
 * workflows run, and `withWorktree` is simply not defined.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import spawn from 'nano-spawn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPiHome, runPi, type PiHome } from '../e2e/support/pi-cli.js';
import { toolExecutions } from '../e2e/support/pi-events.js';
import { startScriptedModel, type ScriptedModel } from '../e2e/support/scripted-model.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
/** Not sources of the package: never copied. */
const SKIPPED = new Set(['node_modules', 'dist', 'build', '.git', 'test', 'bench']);

describe('a build without an optional plugin', () => {
  let copy: string;
  let model: ScriptedModel;
  let pi: PiHome;
  beforeAll(async () => {
    copy = mkdtempSync(join(tmpdir(), 'wf-leave-out-'));
    cpSync(ROOT, copy, { recursive: true, filter: (source) => source === ROOT || !SKIPPED.has(basename(source)) || resolve(source, '..') !== ROOT });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
    cpSync(join(ROOT, 'build'), join(copy, 'build'), { recursive: true });
    for (const dir of [join(copy, 'plugins', 'worktrees'), join(copy, 'build', 'plugins', 'worktrees')]) rmSync(dir, { recursive: true });
    const bin = (path: string) => join(copy, 'node_modules', path);
    await spawn(process.execPath, [bin('rollup/dist/bin/rollup'), '-c', '--silent'], { cwd: copy });
    model = await startScriptedModel();
    pi = createPiHome(model);
  });
  afterAll(async () => {
    pi?.close();
    await model?.close();
    rmSync(copy, { recursive: true, force: true });
  });

  it('builds without the plugin: no entry, no manifest row', () => {
    expect(existsSync(join(copy, 'dist', 'src', 'index.js'))).toBe(true);
    expect(existsSync(join(copy, 'dist', 'plugins', 'evidence', 'index.js'))).toBe(true);
    expect(existsSync(join(copy, 'dist', 'plugins', 'worktrees'))).toBe(false);
    const manifest = JSON.parse(readFileSync(join(copy, 'dist', 'plugins.json'), 'utf8')) as { plugins: { name: string }[] };
    expect(manifest.plugins.map((row) => row.name)).not.toContain('worktrees');
    expect(manifest.plugins.map((row) => row.name)).toContain('budgets');
  });

  it('loads in the real pi CLI: workflows run, withWorktree is not defined', async () => {
    await runPi(pi, ['install', copy]);
    const launches = [
      { name: 'stored', script: 'const stored = await evidence("kept"); return [stored.bytes, await agent("Built without worktrees")];', foreground: true },
      { name: 'scoped', script: 'return await withWorktree("w", async (tree) => tree.path);', foreground: true },
    ];
    model.main(({ toolResults }) => {
      const next = launches[toolResults.length];
      return next === undefined ? { text: 'done' } : { toolCalls: [{ name: 'workflow', arguments: next }] };
    });
    const { stdout, stderr } = await runPi(pi, ['--mode', 'json', '--approve', '--no-session', 'Run both workflows']);
    expect(stderr).not.toContain('Failed to load extension');
    const [stored, scoped] = toolExecutions(stdout).filter((execution) => execution.toolName === 'workflow');
    expect(stored?.details, stored?.text).toMatchObject({ state: 'completed', value: [4, 'Built without worktrees: done'] });
    expect(scoped?.isError).toBe(true);
    expect(scoped?.text).toMatch(/^INVALID_SYNTAX: Line 1, column 14: "withWorktree" is not defined in workflow scripts/);
  });
});
