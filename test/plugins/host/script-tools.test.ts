/**
 * `tools.<name>(args)` in scripts: Pi's real built-in tool definitions run
 * for runs that a host tool call launched or recovered; calls are journaled
 * and replayed; failures are TOOL_FAILED without the tool's output; a run
 * without a live host tool call only replays.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KernelPlugin } from '../../../kernel/index.js';
import { retryTool, workflowTool } from '../../../plugins/host/tools/index.js';
import { createHostFixture, toolError, type HostFixture } from './host-fixture.js';

/** A scope primitive standing in for withWorktree: everything inside runs in `<cwd>/elsewhere`. */
const elsewherePlugin = (dir: () => string): KernelPlugin => ({
  name: 'elsewhere',
  apply(kernel) {
    kernel.hooks.registry.primitives.tap('elsewhere', (primitives) => [
      ...primitives,
      { name: 'elsewhere', kind: 'scope', run: () => ({ path: dir() }), scopeCwd: (value) => (value as { path: string }).path },
    ]);
  },
});

let fx: HostFixture;
beforeEach(() => {
  fx = createHostFixture({ plugins: [elsewherePlugin(() => join(fx.harness.cwd, 'elsewhere'))] });
  writeFileSync(join(fx.harness.cwd, 'note.txt'), 'hello from the project\n');
});
afterEach(() => fx.close());

const foreground = (script: string) => fx.call(workflowTool, { name: 'tools', script, foreground: true });
const log = () => readFileSync(join(fx.harness.cwd, 'log.txt'), 'utf8');

describe('tools.<name> in scripts', () => {
  it('runs Pi\'s built-in read and bash in the run cwd and resolves to their text', async () => {
    const result = await foreground('const text = await tools.read({ path: "note.txt" }); const out = await tools.bash({ command: "echo hi; pwd" }); return { text, out }');
    expect(result['value']).toEqual({ text: 'hello from the project\n', out: `hi\n${fx.harness.cwd}\n` });
  });

  it('rejects with TOOL_FAILED for invalid arguments and failed calls, never carrying the tool output', async () => {
    const result = await foreground(`
      const codes = [];
      for (const call of [() => tools.read({}), () => tools.read({ path: "missing.txt" }), () => tools.bash({ command: "echo secret-output; exit 3" })]) {
        try { await call(); } catch (error) { codes.push([error.code, error.message]); }
      }
      return codes;`);
    const codes = result['value'] as [string, string][];
    expect(codes.map(([code]) => code)).toEqual(['TOOL_FAILED', 'TOOL_FAILED', 'TOOL_FAILED']);
    expect(codes[0]![1]).toMatch(/tools\.read arguments are invalid: .*path/);
    expect(codes[2]![1]).toBe('tools.bash failed');
    expect(JSON.stringify(codes)).not.toContain('secret-output');
  });

  it('refuses calls inside a scope with its own working directory', async () => {
    mkdirSync(join(fx.harness.cwd, 'elsewhere'));
    const result = await foreground('return await elsewhere("x", async () => { try { return await tools.read({ path: "note.txt" }); } catch (error) { return error.message; } })');
    expect(result['value']).toMatch(/cannot be called inside withWorktree/);
  });

  it('cannot be probed with "in"', async () => {
    const error = await toolError(foreground('return "read" in tools'));
    expect(error).toMatchObject({ code: 'INVALID_SYNTAX', message: expect.stringMatching(/cannot be probed with "in"/) });
  });

  it('replays journaled calls on retry; the retry\'s host tool call runs the new ones', async () => {
    const script = 'const a = await tools.bash({ command: "echo x >> log.txt; cat log.txt" }); const gate = await tools.read({ path: "gate.txt" }); return { a, gate }';
    const failed = await foreground(script);
    expect(failed).toMatchObject({ state: 'failed', error: { code: 'TOOL_FAILED' } });
    writeFileSync(join(fx.harness.cwd, 'gate.txt'), 'open');
    const child = await fx.call(retryTool, { runId: failed['runId'], foreground: true });
    expect(child).toMatchObject({ state: 'completed', value: { a: 'x\n', gate: 'open' }, parentRunId: failed['runId'] });
    expect(log()).toBe('x\n');
  });

  it('only replays in runs without a live host tool call (resumed from /workflow or at session start)', async () => {
    const script = 'const a = await tools.bash({ command: "echo x >> log.txt; cat log.txt" }); const gate = await tools.read({ path: "gate.txt" }); return { a, gate }';
    const failed = await foreground(script);
    writeFileSync(join(fx.harness.cwd, 'gate.txt'), 'open');
    const child = await fx.harness.engine.retry(fx.harness.cwd, String(failed['runId']));
    expect(await child.outcome).toMatchObject({ state: 'failed', error: { code: 'TOOL_FAILED', message: expect.stringContaining('needs a live host tool call') } });
    expect(log()).toBe('x\n');
  });
});
