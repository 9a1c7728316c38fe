/**
 * agent.create + handle.send (spec 1 "Script language", spec 2
 * "WorkflowFunctionContext"): turns continue one named handle, each turn is
 * its own agent node; overlapping, cross-branch and reserved uses are refused.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, deferred, gated, gateStarted, release, waitFor, type Harness } from '../support/engine-harness.js';

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  h.answer = undefined;
  h.calls.length = 0;
});

describe('agent.create and handle.send', () => {
  it('two turns return their own values, each turn an agent node labelled with the frozen options', async () => {
    const outcome = await h.run(`
      const dev = agent.create({ name: 'dev', label: 'Developer' });
      const first = await dev.send('turn one');
      const second = await dev.send('turn two');
      return { first, second, name: dev.name };
    `);
    expect(outcome.state).toBe('completed');
    expect(outcome.value).toEqual({ first: 'echo:turn one', second: 'echo:turn two', name: 'dev' });
    expect(h.calls.map((call) => [call.prompt, call.label])).toEqual([
      ['turn one', 'Developer'],
      ['turn two', 'Developer'],
    ]);
    // The second turn continues the first turn's session (its transcript).
    expect(h.calls[1]!.session).toBe(h.calls[0]!.session);
    expect(h.calls.map((call) => call.turn)).toEqual([1, 2]);
    const journal = h.journal(outcome.runDir);
    expect(journal.map((record) => record.kind)).toEqual(['agent', 'agent']);
    expect(journal.map((record) => record.key as string).every((key) => key.includes('@dev#'))).toBe(true);
    expect(new Set(journal.map((record) => record.key)).size).toBe(2);
    const agents = Object.values(h.snapshot(outcome.runDir).agents);
    expect(agents.map((agent) => [agent.label, agent.state])).toEqual([
      ['Developer', 'completed'],
      ['Developer', 'completed'],
    ]);
  });

  it('a handle without label uses its name as label', async () => {
    const outcome = await h.run(`const r = agent.create({ name: 'reviewer' }); return await r.send('look');`);
    expect(outcome.value).toBe('echo:look');
    expect(Object.values(h.snapshot(outcome.runDir).agents).map((agent) => agent.label)).toEqual(['reviewer']);
  });

  it('send accepts outputSchema per turn', async () => {
    h.answer = (prompt) => (prompt === 'json' ? { ok: true } : { result: prompt });
    const outcome = await h.run(`
      const a = agent.create({ name: 'a' });
      const text = await a.send('text');
      const json = await a.send('json', { outputSchema: { type: 'object', required: ['ok'] } });
      return { text, json };
    `);
    expect(outcome.value).toEqual({ text: 'text', json: { ok: true } });
  });

  it('send options other than outputSchema and timeoutMs are INVALID_METADATA', async () => {
    const outcome = await h.run(`const a = agent.create({ name: 'a' }); return await a.send('x', { label: 'other' });`);
    expect(outcome.error).toEqual({ code: 'INVALID_METADATA', message: 'send accepts only outputSchema and timeoutMs, not "label"' });
    expect(h.calls).toEqual([]);
  });

  it('an overlapping send (not awaited) is INVALID_METADATA', async () => {
    const gate = deferred();
    h.answer = async (prompt) => {
      await gate.promise;
      return { result: prompt };
    };
    const handle = await h.launch(`
      const a = agent.create({ name: 'a' });
      const one = a.send('one');
      const two = a.send('two');
      const results = await Promise.allSettled([one, two]);
      return results.map((r) => r.status === 'fulfilled' ? r.value : r.reason.code + ': ' + r.reason.message);
    `);
    await waitFor(() => h.calls.length === 1, 15_000, 'the first turn');
    gate.resolve();
    const outcome = await handle.outcome;
    expect(outcome.value).toEqual(['one', 'INVALID_METADATA: agent handle "a" is already running a turn; await each send']);
    expect(h.calls.map((call) => call.prompt)).toEqual(['one']);
  });

  it('a send from another parallel branch is INVALID_METADATA', async () => {
    const outcome = await h.run(`
      const a = agent.create({ name: 'a' });
      return await parallel('p', { x: () => a.send('from branch') });
    `);
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('INVALID_METADATA');
    expect(outcome.error?.message).toMatch(/must be sent to from the scope that created it/);
    expect(h.calls).toEqual([]);
  });

  it('a handle created inside a branch is used inside that branch', async () => {
    const outcome = await h.run(`
      return await parallel('p', {
        x: async () => { const a = agent.create({ name: 'same' }); return await a.send('x'); },
        y: async () => { const a = agent.create({ name: 'same' }); return await a.send('y'); },
      });
    `);
    expect(outcome.value).toEqual({ x: 'echo:x', y: 'echo:y' });
  });

  it('names starting with function-handle/ are reserved', async () => {
    const outcome = await h.run(`const a = agent.create({ name: 'function-handle/x' }); return await a.send('x');`);
    expect(outcome.error).toEqual({ code: 'INVALID_METADATA', message: 'agent handle names starting with "function-handle/" are reserved' });
    expect(h.calls).toEqual([]);
  });

  it('a name cannot be created twice in one scope', async () => {
    const outcome = await h.run(`
      const a = agent.create({ name: 'dup' });
      const b = agent.create({ name: 'dup' });
      return await b.send('x');
    `);
    expect(outcome.error?.code).toBe('INVALID_METADATA');
    expect(outcome.error?.message).toMatch(/created twice in one scope/);
  });

  it('agent.create without a name is INVALID_METADATA', async () => {
    const outcome = await h.run(`agent.create({ label: 'x' }); return 1;`);
    expect(outcome.error?.code).toBe('INVALID_METADATA');
    expect(outcome.error?.message).toMatch(/non-empty name/);
  });

  it('completed turns replay on resume; the next turn runs', async () => {
    const cwd = h.freshCwd('handles');
    const handle = await h.engine.launch({
      name: 'turns',
      cwd,
      script: `
        const a = agent.create({ name: 'a' });
        const one = await a.send('one');
        await shell(${JSON.stringify(gated())});
        const two = await a.send('two');
        return [one, two];
      `,
    });
    await gateStarted(cwd);
    h.engine.pause(handle.runId);
    release(cwd);
    expect((await handle.outcome).state).toBe('paused');
    const resumed = await h.engine.resume(cwd, handle.runId);
    const outcome = await resumed.outcome;
    expect(outcome).toMatchObject({ state: 'completed', value: ['echo:one', 'echo:two'] });
    expect(h.calls.map((call) => call.prompt)).toEqual(['one', 'two']);
  });
});
