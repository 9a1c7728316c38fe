/**
 * Launch-time errors surfaced through WorkflowEngine.launch (spec 1
 * "Errors"): static preflight, launch request validation, removed fields and
 * invalid settings. None of them creates a run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, rejectionOf, removeGlobalSettings, waitFor, writeGlobalSettings, type Harness } from '../support/engine-harness.js';

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  removeGlobalSettings(h.agentDir);
});

/** Launches in a fresh cwd, expects a rejection and that no run was created. */
async function refused(request: Record<string, unknown>): Promise<{ code?: string; message: string; details?: Record<string, unknown> }> {
  const cwd = h.freshCwd('refused');
  const error = await rejectionOf(h.engine.launch({ name: 'refused', cwd, ...request } as never));
  expect(h.engine.list(cwd)).toEqual([]);
  expect(h.events.filter((recorded) => recorded.event.cwd === cwd)).toEqual([]);
  return error;
}

describe('preflight errors', () => {
  it('a syntax error is INVALID_SYNTAX with line and column', async () => {
    const error = await refused({ script: `const a = 1;\nconst b = ;\nreturn a;` });
    expect(error.code).toBe('INVALID_SYNTAX');
    expect(error.details).toMatchObject({ line: 2, column: 11 });
    expect(error.message).toMatch(/^Line 2, column 11/);
  });

  it('an import is INVALID_SYNTAX', async () => {
    const error = await refused({ script: `import fs from 'node:fs';\nreturn 1;` });
    expect(error.code).toBe('INVALID_SYNTAX');
    expect(error.details).toMatchObject({ line: 1 });
  });

  it('a dynamic import is INVALID_SYNTAX', async () => {
    const error = await refused({ script: `const m = await import('node:fs');\nreturn 1;` });
    expect(error.code).toBe('INVALID_SYNTAX');
  });

  it('eval is INVALID_SYNTAX', async () => {
    const error = await refused({ script: `return eval('1 + 1');` });
    expect(error.code).toBe('INVALID_SYNTAX');
    expect(error.details).toMatchObject({ line: 1 });
  });

  it('an undeclared global is INVALID_SYNTAX naming it', async () => {
    const error = await refused({ script: `await shell('true');\nreturn process.env.HOME;` });
    expect(error.code).toBe('INVALID_SYNTAX');
    expect(error.message).toMatch(/"process" is not defined/);
    expect(error.details).toMatchObject({ line: 2, column: 8 });
  });

  it('a primitive of a plugin that is not loaded is an undeclared global', async () => {
    const error = await refused({ script: `return await withWorktree('w', () => 1);` });
    expect(error.code).toBe('INVALID_SYNTAX');
    expect(error.message).toMatch(/"withWorktree" is not defined/);
  });

  it('inspect reports the same preflight without creating a run', () => {
    try {
      h.engine.inspect(`return nope;`);
      throw new Error('expected INVALID_SYNTAX');
    } catch (error) {
      expect((error as { code: string }).code).toBe('INVALID_SYNTAX');
    }
    const result = h.engine.inspect(`const r = await shell('true'); return r;`);
    expect(Object.values(result.sites).map((site) => site.callee)).toEqual(['shell']);
  });
});

describe('launch request errors', () => {
  it('a missing or blank name is INVALID_METADATA', async () => {
    const cwd = h.freshCwd('noname');
    const missing = await rejectionOf(h.engine.launch({ cwd, script: 'return 1;' } as never));
    expect(missing.code).toBe('INVALID_METADATA');
    const blank = await rejectionOf(h.engine.launch({ name: '   ', cwd, script: 'return 1;' }));
    expect(blank.code).toBe('INVALID_METADATA');
    expect(h.engine.list(cwd)).toEqual([]);
  });

  it('both script and scriptPath, or neither, is INVALID_METADATA', async () => {
    const cwd = h.freshCwd('both');
    writeFileSync(join(cwd, 'flow.js'), 'return 1;');
    const both = await rejectionOf(h.engine.launch({ name: 'x', cwd, script: 'return 1;', scriptPath: 'flow.js' }));
    expect(both.code).toBe('INVALID_METADATA');
    expect(both.message).toMatch(/exactly one of script or scriptPath/);
    const neither = await rejectionOf(h.engine.launch({ name: 'x', cwd } as never));
    expect(neither.code).toBe('INVALID_METADATA');
    expect(h.engine.list(cwd)).toEqual([]);
  });

  it('an unreadable scriptPath is INVALID_METADATA naming the path', async () => {
    const error = await refused({ scriptPath: 'missing.js' });
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toMatch(/missing\.js/);
  });

  it('unknown launch fields and out-of-range concurrency are INVALID_METADATA', async () => {
    expect((await refused({ script: 'return 1;', bogus: true })).code).toBe('INVALID_METADATA');
    expect((await refused({ script: 'return 1;', concurrency: 17 })).code).toBe('INVALID_METADATA');
  });

  it('the removed maxAgentLaunches launch field is CONFIG_ERROR', async () => {
    const error = await refused({ script: 'return 1;', maxAgentLaunches: 3 });
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.details).toMatchObject({ key: 'maxAgentLaunches' });
  });
});

describe('settings errors', () => {
  it('an invalid global settings file is CONFIG_ERROR naming its path', async () => {
    const path = writeGlobalSettings(h.agentDir, { concurrency: 99 });
    const error = await refused({ script: 'return 1;' });
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toContain(path);
    expect(error.details).toMatchObject({ path });
  });

  it('malformed JSON and unknown keys are CONFIG_ERROR naming the path', async () => {
    const path = writeGlobalSettings(h.agentDir, '{ "concurrency": ');
    const malformed = await refused({ script: 'return 1;' });
    expect(malformed.code).toBe('CONFIG_ERROR');
    expect(malformed.message).toContain(path);
    writeGlobalSettings(h.agentDir, { surprise: 1 });
    const unknown = await refused({ script: 'return 1;' });
    expect(unknown.code).toBe('CONFIG_ERROR');
    expect(unknown.message).toContain(path);
  });

  it('a valid settings file launches normally', async () => {
    writeGlobalSettings(h.agentDir, { concurrency: 4 });
    const outcome = await h.run('return 1;');
    expect(outcome.state).toBe('completed');
  });

  it('an invalid settings file stops resume with CONFIG_ERROR and leaves the run paused', async () => {
    const cwd = h.freshCwd('resume-settings');
    const handle = await h.engine.launch({ name: 'r', cwd, script: `return await checkpoint({ name: 'c', prompt: 'p' });` });
    await waitFor(() => h.engine.status(cwd, handle.runId).state === 'awaiting_input');
    h.engine.pause(handle.runId);
    expect((await handle.outcome).state).toBe('paused');
    const path = writeGlobalSettings(h.agentDir, { concurrency: 0 });
    const error = await rejectionOf(h.engine.resume(cwd, handle.runId));
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toContain(path);
    expect(h.snapshot(handle.runDir).state).toBe('paused');
  });

  it('an invalid settings file stops retry with CONFIG_ERROR and creates no child', async () => {
    const cwd = h.freshCwd('retry-settings');
    const failed = await (await h.engine.launch({ name: 'r', cwd, script: `throw new Error('x');` })).outcome;
    const path = writeGlobalSettings(h.agentDir, { concurrency: 99 });
    const error = await rejectionOf(h.engine.retry(cwd, failed.runId));
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toContain(path);
    expect(h.engine.list(cwd).map((summary) => summary.runId)).toEqual([failed.runId]);
  });
});
