/**
 * calls.jsonl (spec 1 "Script language", Rules): every performed call leaves
 * one versioned metadata record; primitive calls keep name, path, phase,
 * timing, status and an error code, never arguments or values; agent
 * attempts keep model, timing and the usage they added; replayed calls are
 * not recorded again; readCallRecords validates each line and skips bad ones.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CALL_RECORD_VERSION, readCallRecords, WorkflowError, type KernelPlugin } from '../../kernel/index.js';
import { createHarness, type Harness } from '../support/engine-harness.js';

/** A `tools` namespace like the host's: `tools.ok(secret)` returns a value; `tools.fail(secret)` throws TOOL_FAILED naming the secret. */
const probePlugin: KernelPlugin = {
  name: 'probe',
  provides: { primitives: ['tools'] },
  apply(kernel) {
    kernel.hooks.registry.primitives.tap('probe', (primitives) => [
      ...primitives,
      {
        name: 'tools',
        kind: 'namespace',
        run(call) {
          if (call.member === 'fail') throw new WorkflowError('TOOL_FAILED', `tools.fail failed on ${String(call.args[0])}`);
          return { echoed: `result-of-${String(call.args[0])}` };
        },
      },
    ]);
  },
};

let h: Harness;
beforeAll(() => {
  h = createHarness({ plugins: [probePlugin] });
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  h.answer = undefined;
});

describe('calls.jsonl', () => {
  it('records primitive calls by name, path, phase, timing, status and code only', async () => {
    const outcome = await h.run(`
      phase('probing');
      await parallel('p', { a: () => tools.ok('arg-secret-1') });
      try { await tools.fail('arg-secret-2'); } catch (error) {}
      return 'ok';
    `);
    expect(outcome.state).toBe('completed');
    const text = readFileSync(join(outcome.runDir, 'calls.jsonl'), 'utf8');
    expect(text).not.toContain('secret');
    expect(text).not.toContain('result-of');
    const { records, skipped } = readCallRecords(outcome.runDir);
    expect(skipped).toEqual([]);
    expect(records).toEqual([
      { v: CALL_RECORD_VERSION, op: 'primitive', key: expect.any(String), name: 'tools.ok', path: ['parallel:p/a'], phase: 'probing', startedAt: expect.any(String), endedAt: expect.any(String), status: 'completed' },
      { v: CALL_RECORD_VERSION, op: 'primitive', key: expect.any(String), name: 'tools.fail', path: [], phase: 'probing', startedAt: expect.any(String), endedAt: expect.any(String), status: 'failed', code: 'TOOL_FAILED' },
    ]);
    for (const record of records) expect(Date.parse(record.endedAt)).toBeGreaterThanOrEqual(Date.parse(record.startedAt));
  });

  it('records each agent attempt with its model, status and the usage it added', async () => {
    let tries = 0;
    h.answer = (prompt) => (prompt === 'flaky' && ++tries === 1 ? { nope: true } : { result: 'fine' });
    const outcome = await h.run(`phase('work'); return await agent('flaky', { label: 'worker', retries: 1, model: 'test/m:low' });`);
    expect(outcome.state).toBe('completed');
    const agents = readCallRecords(outcome.runDir).records.filter((record) => record.op === 'agent');
    expect(agents.map((record) => [record.attempt, record.status, record.code, record.label, record.phase])).toEqual([
      [1, 'failed', 'AGENT_FAILED', 'worker', 'work'],
      [2, 'completed', undefined, 'worker', 'work'],
    ]);
    // The echo transport charges 10 input and 5 output tokens per turn; each attempt has its own session.
    expect(agents.map((record) => record.usage)).toEqual([
      { inputTokens: 10, outputTokens: 5, costUsd: 0.001 },
      { inputTokens: 10, outputTokens: 5, costUsd: 0.001 },
    ]);
    expect(agents[0]!.agentId).toBe(Object.keys(h.snapshot(outcome.runDir).agents)[0]);
    expect(typeof agents[0]!.model === 'string' || agents[0]!.model === null).toBe(true);
  });

  it('does not record replayed calls again, and skips lines that are not version-1 records', async () => {
    const first = await h.run(`await tools.ok('x'); await shell('true'); return await agent('once');`);
    expect(readCallRecords(first.runDir).records.map((record) => record.op)).toEqual(['primitive', 'shell', 'agent']);
    // A retry child replays the parent's journal: nothing runs, so nothing is recorded in either run.
    h.writeSnapshot(first.runDir, (snapshot) => {
      snapshot['state'] = 'failed';
      snapshot['failure'] = { code: 'AGENT_FAILED', message: 'made to fail' };
    });
    const retry = await h.engine.retry(h.cwd, first.runId);
    await retry.outcome;
    expect(readCallRecords(retry.runDir).records).toEqual([]);
    expect(readCallRecords(first.runDir).records).toHaveLength(3);
    appendFileSync(join(first.runDir, 'calls.jsonl'), `${JSON.stringify({ v: 2, op: 'future' })}\n{"torn`);
    const read = readCallRecords(first.runDir);
    expect(read.records).toHaveLength(3);
    expect(read.skipped).toEqual([4, 5]);
  });
});
