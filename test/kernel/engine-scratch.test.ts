import { it, expect, afterAll, afterEach } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHarness, waitFor, writeGlobalSettings, removeGlobalSettings, rejectionOf, deferred } from '../support/engine-harness.js';
import { registerWorkflowExtension, resetWorkflowRegistry } from '../../kernel/registry/index.js';

const h = createHarness();
afterAll(() => h.close());
afterEach(() => resetWorkflowRegistry());

it('functions', async () => {
  let runs = 0; let open = false;
  registerWorkflowExtension({ version: '1.0.0', headline: 'h', functions: {
    count: { description: 'd', input: { type: 'object', required: ['n'], properties: { n: { type: 'number' } } }, output: { type: 'number' }, run: (input) => { runs++; return (input.n as number) * 10; } },
    bad: { description: 'd', input: { type: 'object' }, output: { type: 'number' }, run: () => 'str' as any },
    gate: { description: 'd', input: { type: 'object' }, output: { type: 'boolean' }, run: () => { if (!open) throw new Error('closed'); return true; } },
    ctx: { description: 'd', input: { type: 'object' }, output: {}, run: async (input, c) => {
      c.phase('fnphase'); c.log('fnlog');
      const s = await c.shell('echo $X', { env: { X: 'v' } });
      const p = c.prompt('hi {{a}}', { a: 1 });
      const par = await c.parallel('pp', { a: () => c.shell('echo pa').then(r => r.stdout), b: () => 2 });
      const pl = await c.pipeline('pl', { i: 1 }, [(v) => (v as number) + 1]);
      const inv = await c.invoke('count', { n: 3 });
      const a = await c.agent('q', { label: 'L' });
      const cp = await c.checkpoint({ name: 'fc', prompt: 'ok?' });
      const miss = await c.invoke('nope', {}).catch((e) => e.code);
      const qual = await c.invoke('ext.count', { n: 1 }).catch((e) => e.code);
      return { s: s.stdout, p, par, pl, inv, a, cp, miss, qual, run: { runId: c.run.runId === undefined ? null : 'ok', args: c.run.args, name: c.run.workflow.name } };
    } },
  } });
  let o = await h.run(`const a = await count({ n: 1 }); const b = await count({ n: 2 }); return [a, b];`);
  console.log(o.value, runs, h.journal(o.runDir).map(r => [r.key, r.kind, r.value]));
  o = await h.run(`return await count({ n: 'x' });`); console.log(o.error);
  o = await h.run(`return await bad({});`); console.log(o.error);
  const run = await h.launch(`return await ctx({});`, { args: { z: 1 } });
  await waitFor(() => h.engine.status(h.cwd, run.runId).state === 'awaiting_input');
  h.engine.respond(h.cwd, run.runId, 'fc', true);
  o = { ...(await run.outcome), runDir: run.runDir };
  console.log(JSON.stringify(o.value), o.error, h.runEvents(run.runDir), h.journal(run.runDir).map(r => r.key));
  runs = 0;
  o = await h.run(`const a = await count({ n: 1 }); const b = await count({ n: 2 }); await gate({}); return [a, b];`);
  console.log(o.state, o.error, runs);
  open = true;
  const r = await h.engine.retry(h.cwd, o.runId, { expectedState: 'failed' });
  const o2 = await r.outcome;
  console.log(o2, runs, h.snapshot(r.runDir).parentRunId, h.snapshot(r.runDir).lineage, h.journal(r.runDir));
});
