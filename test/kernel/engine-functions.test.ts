/**
 * Registered workflow functions (spec 2 "WorkflowFunction",
 * "WorkflowFunctionContext", "Replay semantics of functions"), called from
 * scripts as awaited globals.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { registerWorkflowExtension, resetWorkflowRegistry } from '../../kernel/registry/index.js';
import type { WorkflowFunction } from '../../kernel/registry/index.js';
import type { WorkflowFunctionContext } from '../../kernel/contracts/function-context.js';
import { createHarness, waitFor, type Harness } from '../support/engine-harness.js';

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  resetWorkflowRegistry();
  h.answer = undefined;
  h.calls.length = 0;
});

function register(functions: Record<string, WorkflowFunction>): void {
  registerWorkflowExtension({ version: '1.0.0', headline: 'Test functions', functions });
}

const anyObject = { type: 'object' } as const;

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((line) => line !== '') : [];
}

describe('calling registered functions', () => {
  it('is an awaited global taking one object; the input is a frozen clone', async () => {
    const seen: unknown[] = [];
    register({
      double: {
        description: 'doubles n',
        input: { type: 'object', required: ['n'], properties: { n: { type: 'number' } }, additionalProperties: false },
        output: { type: 'object', required: ['value'], properties: { value: { type: 'number' } } },
        run: (input) => {
          seen.push({ frozen: Object.isFrozen(input), input });
          return { value: (input['n'] as number) * 2 };
        },
      },
    });
    const outcome = await h.run(`const input = { n: 21 }; const r = await double(input); return { r, input };`);
    expect(outcome).toMatchObject({ state: 'completed', value: { r: { value: 42 }, input: { n: 21 } } });
    expect(seen).toEqual([{ frozen: true, input: { n: 21 } }]);
    expect(h.journal(outcome.runDir)).toEqual([expect.objectContaining({ key: '|fn:double#0', kind: 'function', name: 'double', value: { value: 42 } })]);
  });

  it('an input that violates the schema is RESULT_INVALID and the function does not run', async () => {
    let runs = 0;
    register({
      typed: {
        description: 'd',
        input: { type: 'object', required: ['n'], properties: { n: { type: 'number' } } },
        output: { type: 'number' },
        run: () => ++runs,
      },
    });
    const outcome = await h.run(`return await typed({ n: 'seven' });`);
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('RESULT_INVALID');
    expect(outcome.error?.message).toMatch(/input of function "typed".*\/n must be number/);
    expect(runs).toBe(0);
  });

  it('an output that violates the schema is RESULT_INVALID and is journaled only as the failure the script received', async () => {
    register({ wrong: { description: 'd', input: anyObject, output: { type: 'number' }, run: () => 'not a number' } });
    const outcome = await h.run(`return await wrong({});`);
    expect(outcome.error?.code).toBe('RESULT_INVALID');
    expect(outcome.error?.message).toMatch(/output of function "wrong"/);
    expect(h.journal(outcome.runDir).map((record) => record.kind)).toEqual(['failure']);
  });

  it('the context exposes the read-only run', async () => {
    let seen: Record<string, unknown> = {};
    register({
      who: {
        description: 'd',
        input: anyObject,
        output: anyObject,
        run: (_input, context) => {
          const run = context.run;
          seen = { frozen: Object.isFrozen(run) && Object.isFrozen(run.args), aborted: run.signal.aborted };
          return { runId: run.runId, sessionId: run.sessionId, cwd: run.cwd, workflow: run.workflow, args: run.args };
        },
      },
    });
    const outcome = await h.run(`return await who({});`, { args: { a: [1] }, description: 'desc' });
    expect(outcome.value).toEqual({ runId: outcome.runId, sessionId: 's1', cwd: h.cwd, workflow: { name: 'test', description: 'desc' }, args: { a: [1] } });
    expect(seen).toEqual({ frozen: true, aborted: false });
  });

  it('repeated calls in one scope get distinct journal entries', async () => {
    register({ id: { description: 'd', input: anyObject, output: {}, run: (input) => input['v'] ?? null } });
    const outcome = await h.run(`const a = await id({ v: 1 }); const b = await id({ v: 2 }); const c = await id({ v: 3 }); return [a, b, c];`);
    expect(outcome.value).toEqual([1, 2, 3]);
    const records = h.journal(outcome.runDir);
    expect(records.map((record) => record.value)).toEqual([1, 2, 3]);
    expect(new Set(records.map((record) => record.key)).size).toBe(3);
  });
});

describe('the function context', () => {
  it('shell, prompt, parallel, pipeline, phase, log, agent, checkpoint and invoke work inside a function, scoped to it', async () => {
    register({
      inner: { description: 'd', input: anyObject, output: { type: 'number' }, run: (input) => (input['n'] as number) + 1 },
      outer: {
        description: 'd',
        input: anyObject,
        output: anyObject,
        run: async (_input, c: WorkflowFunctionContext) => {
          c.phase('inside');
          c.log('from function');
          const sh = await c.shell('echo "$FN_VAR"', { env: { FN_VAR: 'fn-env' } });
          const text = c.prompt('n={n}', { n: 1 });
          const par = await c.parallel('pp', { a: async () => (await c.shell('echo pa')).stdout, b: () => 2 });
          const pipe = await c.pipeline('pl', { i: 1 }, [(v) => (v as number) * 3, (v, key) => `${key}:${String(v)}`]);
          const invoked = await c.invoke('inner', { n: 41 });
          const agent = await c.agent('ask', { label: 'fn-agent' });
          const approved = await c.checkpoint({ name: 'fn-gate', prompt: 'ok?' });
          return { sh: sh.stdout, text, par, pipe, invoked, agent, approved };
        },
      },
    });
    const handle = await h.launch(`return await outer({});`);
    await waitFor(() => h.engine.status(h.cwd, handle.runId).state === 'awaiting_input');
    h.engine.respond(h.cwd, handle.runId, 'fn-gate', true);
    const outcome = await handle.outcome;
    expect(outcome.state).toBe('completed');
    expect(outcome.value).toEqual({ sh: 'fn-env\n', text: 'n=1', par: { a: 'pa\n', b: 2 }, pipe: { i: 'i:3' }, invoked: 42, agent: 'echo:ask', approved: true });
    // A phase set inside a function is named after its call (issue 29: two calls never share a phase).
    expect(h.snapshot(handle.runDir).phase).toBe('outer › inside');
    // The function's notes; the run's state and checkpoint lines (lib/run-time.ts) are left out.
    expect(h.runEvents(handle.runDir).filter((event) => event['type'] === 'phase' || event['type'] === 'log')).toEqual([
      expect.objectContaining({ type: 'phase', phase: 'outer › inside', path: ['fn:outer'] }),
      expect.objectContaining({ type: 'log', message: 'from function', path: ['fn:outer'] }),
    ]);
    const keys = h.journal(handle.runDir).map((record) => record.key as string);
    // Every inner operation is journaled under the function's structural path, the call itself last.
    expect(keys.at(-1)).toBe('|fn:outer#0');
    expect(keys.slice(0, -1).every((key) => key.startsWith('fn:outer'))).toBe(true);
    expect(keys).toContain('fn:outer|fn:inner#0');
    expect(keys.some((key) => key.startsWith('fn:outer/parallel:pp/a|'))).toBe(true);
    expect(Object.values(h.snapshot(handle.runDir).agents)).toEqual([expect.objectContaining({ label: 'fn-agent', path: ['fn:outer'], state: 'completed' })]);
  });

  it('invoke of an unknown or qualified name is MISSING_WORKFLOW', async () => {
    register({
      target: { description: 'd', input: anyObject, output: {}, run: () => 'ok' },
      caller: {
        description: 'd',
        input: anyObject,
        output: anyObject,
        run: async (_input, c) => {
          const codes: Record<string, string> = {};
          for (const name of ['nope', 'ext.target', 'pkg/target', 'ns:target']) {
            codes[name] = await c.invoke(name, {}).then(
              () => 'resolved',
              (error: { code: string }) => error.code,
            );
          }
          return { codes, direct: await c.invoke('target', {}) };
        },
      },
    });
    const outcome = await h.run(`return await caller({});`);
    expect(outcome.value).toEqual({
      codes: { nope: 'MISSING_WORKFLOW', 'ext.target': 'MISSING_WORKFLOW', 'pkg/target': 'MISSING_WORKFLOW', 'ns:target': 'MISSING_WORKFLOW' },
      direct: 'ok',
    });
  });

  it('invoke validates the input of the invoked function', async () => {
    register({
      strict: { description: 'd', input: { type: 'object', required: ['x'] }, output: {}, run: () => 1 },
      caller: { description: 'd', input: anyObject, output: {}, run: (_input, c) => c.invoke('strict', {}) },
    });
    const outcome = await h.run(`return await caller({});`);
    expect(outcome.error?.code).toBe('RESULT_INVALID');
  });

  it('handles created in a function: two turns, reserved names refused', async () => {
    register({
      chat: {
        description: 'd',
        input: anyObject,
        output: {},
        run: async (_input, c) => {
          const handle = c.agent.create({ name: 'helper' });
          const one = await handle.send('one');
          const two = await handle.send('two');
          const reserved = c.agent.create({ name: 'function-handle/x' });
          const refused = await reserved.send('x').then(
            () => 'sent',
            (error: { code: string }) => error.code,
          );
          return [one, two, refused];
        },
      },
    });
    const outcome = await h.run(`return await chat({});`);
    expect(outcome.value).toEqual(['echo:one', 'echo:two', 'INVALID_METADATA']);
    expect(h.calls.map((call) => call.prompt)).toEqual(['one', 'two']);
  });
});

describe('failure and retry of functions', () => {
  it('a throwing function fails the run; retry replays completed calls (and completed work inside the thrower) and reruns the rest', async () => {
    const cwd = h.freshCwd('fnretry');
    let open = false;
    let stepRuns = 0;
    let flakyRuns = 0;
    register({
      step: {
        description: 'appends to a counter',
        input: { type: 'object', required: ['n'] },
        output: { type: 'number' },
        run: async (input, c) => {
          stepRuns += 1;
          await c.shell(`echo ${String(input['n'])} >> steps`);
          return (input['n'] as number) * 10;
        },
      },
      flaky: {
        description: 'throws until opened',
        input: anyObject,
        output: { type: 'string' },
        run: async (_input, c) => {
          flakyRuns += 1;
          await c.shell('echo x >> flaky');
          if (!open) throw new Error('gate is closed');
          return 'passed';
        },
      },
    });
    const first = await h.engine.launch({ name: 'fn', cwd, script: `const a = await step({ n: 1 }); const b = await step({ n: 2 }); const f = await flaky({}); return [a, b, f];` });
    const failed = await first.outcome;
    expect(failed.state).toBe('failed');
    expect(failed.error?.message).toContain('gate is closed');
    expect(h.journal(first.runDir).filter((record) => record.kind === 'function').map((record) => record.value)).toEqual([10, 20]);
    expect([stepRuns, flakyRuns]).toEqual([2, 1]);

    open = true;
    const retry = await h.engine.retry(cwd, failed.runId, { expectedState: 'failed' });
    const outcome = await retry.outcome;
    expect(outcome).toMatchObject({ state: 'completed', value: [10, 20, 'passed'] });
    // step replayed twice with its own distinct values; flaky ran again, but its journaled shell replayed.
    expect([stepRuns, flakyRuns]).toEqual([2, 2]);
    expect(lines(join(cwd, 'steps'))).toEqual(['1', '2']);
    expect(lines(join(cwd, 'flaky'))).toEqual(['x']);
    // The child journals only what it performed itself.
    expect(h.journal(retry.runDir).filter((record) => record.kind === 'function').map((record) => record.name)).toEqual(['flaky']);
  });

  it('a replayed value that violates the output schema is RESULT_INVALID', async () => {
    let open = false;
    register({
      num: { description: 'd', input: anyObject, output: { type: 'number' }, run: () => 5 },
      gate: {
        description: 'd',
        input: anyObject,
        output: {},
        run: () => {
          if (!open) throw new Error('closed');
          return true;
        },
      },
    });
    const failed = await h.run(`const n = await num({}); await gate({}); return n;`);
    expect(failed.state).toBe('failed');
    // Tamper with the parent's journal: the replayed value no longer fits the schema.
    const journalFile = join(failed.runDir, 'journal.jsonl');
    const records = h.journal(failed.runDir).map((record) => (record['kind'] === 'function' ? { ...record, value: 'five' } : record));
    writeFileSync(journalFile, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    open = true;
    const retry = await h.engine.retry(h.cwd, failed.runId);
    const outcome = await retry.outcome;
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('RESULT_INVALID');
    expect(outcome.error?.message).toMatch(/output of function "num"/);
  });

  it('a function whose journal entry is a different function is RESUME_INCOMPATIBLE', async () => {
    let open = false;
    register({
      alpha: { description: 'd', input: anyObject, output: {}, run: () => 'a' },
      gate: {
        description: 'd',
        input: anyObject,
        output: {},
        run: () => {
          if (!open) throw new Error('closed');
          return true;
        },
      },
    });
    const failed = await h.run(`await alpha({}); await gate({}); return 1;`);
    const records = h.journal(failed.runDir).map((record) => (record['name'] === 'alpha' ? { ...record, name: 'gate' } : record));
    writeFileSync(join(failed.runDir, 'journal.jsonl'), records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    open = true;
    const outcome = await (await h.engine.retry(h.cwd, failed.runId)).outcome;
    expect(outcome.error?.code).toBe('RESUME_INCOMPATIBLE');
  });
});

describe('journaling order', () => {
  it('journals a result before the script’s next call reaches the host (the reply does not wait for the record)', async () => {
    let seenBy: unknown;
    register({
      first: { description: 'returns 1', input: anyObject, output: anyObject, run: () => ({ n: 1 }) },
      peek: {
        description: 'reads the journal of its own run',
        input: anyObject,
        output: anyObject,
        run: (_input, context) => {
          seenBy = lines(join(h.runDir(context.run.runId), 'journal.jsonl')).map((line) => (JSON.parse(line) as { key: string }).key);
          return {};
        },
      },
    });
    const outcome = await h.run(`const a = await first({}); await peek(a); return a;`);
    expect(outcome).toMatchObject({ state: 'completed', value: { n: 1 } });
    expect(seenBy).toEqual(['|fn:first#0']);
  });
});
