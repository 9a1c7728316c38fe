/**
 * Replay integrity (issue 10): a resumed run sees the journal's results in
 * the order the original run received them, a journaled call that no longer
 * matches the script's call fails with the typed non-determinism error, and
 * calls from one site that race are refused at run time before any effect.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { registerWorkflowExtension, resetWorkflowRegistry } from '../../kernel/registry/index.js';
import { createHarness, gateStarted, gated, release, type Harness } from '../support/engine-harness.js';

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
});

function lines(cwd: string, file = 'ledger'): string[] {
  const path = join(cwd, file);
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((line) => line !== '') : [];
}

/** Launches `script` in a fresh cwd on its own engine, waits for the gated shell, interrupts, and resumes on another engine. */
async function interruptAndResume(script: string, before?: (runDir: string, cwd: string) => void): Promise<{ cwd: string; runDir: string; outcome: Awaited<ReturnType<typeof h.run>> }> {
  const cwd = h.freshCwd('replay');
  const first = h.newEngine();
  const handle = await first.launch({ name: 'replay', cwd, script });
  await gateStarted(cwd);
  await first.close();
  expect((await handle.outcome).state).toBe('interrupted');
  before?.(handle.runDir, cwd);
  release(cwd);
  const resumed = await h.newEngine().resume(cwd, handle.runId);
  return { cwd, runDir: handle.runDir, outcome: { ...(await resumed.outcome), runDir: handle.runDir } };
}

describe('ordered replay', () => {
  it('hands results over in the order the original run received them (Promise.race keeps its winner)', async () => {
    const { cwd, outcome } = await interruptAndResume(`
      const first = await Promise.race([
        // The slow shell ends only after the fast one has, however late the fast one starts.
        shell('while [ ! -e fast.done ]; do sleep 0.01; done; sleep 0.3; echo slow >> ledger; echo slow'),
        shell('echo fast >> ledger; : > fast.done; echo fast'),
      ]);
      const order = [];
      await Promise.all([
        shell('while [ ! -e y.done ]; do sleep 0.01; done; sleep 0.3; echo x').then((r) => order.push(r.stdout.trim())),
        shell(': > y.done; echo y').then((r) => order.push(r.stdout.trim())),
      ]);
      await shell(${JSON.stringify(gated())});
      return { first: first.stdout.trim(), order };
    `);
    expect(outcome).toMatchObject({ state: 'completed', value: { first: 'fast', order: ['y', 'x'] } });
    // Nothing journaled ran again.
    expect(lines(cwd).sort()).toEqual(['fast', 'slow']);
  });

  it('replays a failure the script caught at the same point', async () => {
    const { cwd, outcome, runDir } = await interruptAndResume(`
      let caught;
      try { await shell('echo once >> ledger; sleep 30', { timeoutMs: 1500 }); } catch (error) { caught = error.code; }
      await shell(${JSON.stringify(gated())});
      return caught;
    `);
    expect(outcome).toMatchObject({ state: 'completed', value: 'SHELL_FAILED' });
    expect(lines(cwd)).toEqual(['once']);
    expect(h.journal(runDir).map((record) => record.kind)).toEqual(['failure', 'shell']);
  });
});

describe('handle turns refused while one runs', () => {
  it('a refused, caught send gets no journal key, so a resumed run replays the same turns', async () => {
    const { outcome } = await interruptAndResume(`
      const h = agent.create({ name: 'h' });
      const one = h.send('one');
      const two = await h.send('two').catch((e) => e.code);
      const first = await one;
      const three = await h.send('three');
      await shell(${JSON.stringify(gated())});
      return [first, two, three, await h.send('four')];
    `);
    expect(outcome).toMatchObject({ state: 'completed', value: ['echo:one', 'INVALID_METADATA', 'echo:three', 'echo:four'] });
    // Turns one and three replayed; only four ran after the resume.
    expect(h.calls.filter((call) => call.prompt === 'one' || call.prompt === 'three')).toHaveLength(2);
    expect(h.calls.filter((call) => call.prompt === 'two')).toHaveLength(0);
  });
});

describe('the digest check', () => {
  it('a journaled call that differs from the call the script makes now fails the resume with RESUME_INCOMPATIBLE', async () => {
    const { cwd, outcome } = await interruptAndResume(
      `
      const a = await shell('echo a >> ledger; echo a');
      await shell(${JSON.stringify(gated())});
      return a.stdout;
    `,
      (runDir) => {
        // Someone edited the journal: the recorded call was another command.
        const file = join(runDir, 'journal.jsonl');
        const [record] = h.journal(runDir);
        writeFileSync(file, `${JSON.stringify({ ...record, digest: '0'.repeat(64), call: 'shell("something else")' })}\n`);
      },
    );
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('RESUME_INCOMPATIBLE');
    expect(outcome.error?.message).toMatch(/no longer replays its journal: at 2:23 \(journal key \|2:23#0\) the journal recorded shell\("something else"\), but the script now calls shell\("echo a >> ledger; echo a"\)/);
    const snapshot = h.snapshot(outcome.runDir);
    expect(snapshot.failure).toMatchObject({ details: { reason: 'nondeterministic_replay', site: '2:23', key: '|2:23#0', journaled: 'shell("something else")' } });
    // Nothing after the diverged call ran.
    expect(lines(cwd)).toEqual(['a']);
  });

  it('a journaled call the script never makes fails the resume before anything new runs', async () => {
    const { cwd, outcome } = await interruptAndResume(
      `
      const a = await shell('echo a >> ledger; echo a');
      await shell(${JSON.stringify(gated())});
      return a.stdout;
    `,
      (runDir) => {
        // The journal says the first result went to a call at 9:9, which the script has no longer.
        const [record] = h.journal(runDir);
        writeFileSync(join(runDir, 'journal.jsonl'), `${JSON.stringify({ ...record, key: '|9:9#0' })}\n`);
      },
    );
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('RESUME_INCOMPATIBLE');
    expect(outcome.error?.message).toMatch(/at 9:9 \(journal key \|9:9#0\) the journal's next operation shell\("echo a >> ledger; echo a"\) was never called/);
    // The script's own first call was held back, never run.
    expect(lines(cwd)).toEqual(['a']);
  });

  it('a registered function whose inner calls changed fails the resume instead of replaying them', async () => {
    let command = 'echo v1';
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'changing',
      functions: {
        build: {
          description: 'runs a command, then waits',
          input: { type: 'object' },
          output: { type: 'object' },
          run: async (_input, context) => {
            const first = await context.shell(command);
            await context.shell(gated());
            return { out: first.stdout };
          },
        },
      },
    });
    const { outcome } = await interruptAndResume(`return await build({});`, () => {
      command = 'echo v2';
    });
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('RESUME_INCOMPATIBLE');
    expect(outcome.error?.message).toMatch(/journal recorded shell\("echo v1",null\), but the script now calls shell\("echo v2",null\)/);
  });
});

describe('calls from one site must not race (run time)', () => {
  it('refuses the issue 1 reproduction before the racing call runs, whichever chain finishes first', async () => {
    // The slow chain's first shell ends only after the fast chain's step result
    // reached the script (it then runs one more shell), so the slow chain calls the
    // step again after that result was delivered, but not causally after it.
    for (const [slow, fast] of [
      ['A', 'B'],
      ['B', 'A'],
    ] as const) {
      const chain = (name: string) =>
        name === slow
          ? `shell('while [ ! -e ${fast}.delivered ]; do sleep 0.01; done; echo ${name}').then(later.${name})`
          : `shell('echo ${name}').then(later.${name})`;
      const outcome = await h.run(`
        const step = (c) => shell(c);
        const later = {
          A: (r) => step('echo after-A >> ledger')${slow === 'B' ? ".then((s) => shell(': > A.delivered').then(() => s))" : ''},
          B: (r) => step('echo after-B >> ledger')${slow === 'A' ? ".then((s) => shell(': > B.delivered').then(() => s))" : ''},
        };
        const [x, y] = await Promise.all([
          ${chain('A')},
          ${chain('B')},
        ]);
        return [x.stdout, y.stdout];
      `);
      expect(outcome.state).toBe('failed');
      expect(outcome.error?.code).toBe('INVALID_METADATA');
      expect(outcome.error?.message).toMatch(/shell at 2:29 was called again, but not after its previous call's result/);
      // The first chain's call ran; the racing one never reached the host.
      expect(lines(h.cwd)).toEqual([`after-${fast}`]);
      writeFileSync(join(h.cwd, 'ledger'), '');
    }
  });

  it('refuses a second call while the previous one of its site is still running', async () => {
    const outcome = await h.run(`
      const step = (c) => shell(c);
      const p = step('sleep 0.2; echo one >> ledger');
      const q = step('echo two >> ledger');
      await Promise.all([p, q]);
    `);
    expect(outcome.error).toMatchObject({ code: 'INVALID_METADATA' });
    expect(outcome.error?.message).toMatch(/was called again while its previous call is still running/);
  });

  it('allows what is ordered: loops, joins, recursion, chains, branches, functions and handle turns', async () => {
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'twice',
      functions: { twice: { description: 'd', input: { type: 'object' }, output: { type: 'number' }, run: (input) => Number(input['n']) * 2 } },
    });
    const outcome = await h.run(`
      const step = (c) => shell('echo ' + c);
      const out = [];
      for (let i = 0; i < 3; i++) out.push((await step(i)).stdout.trim());
      await Promise.all([step('j1'), shell('sleep 0.1; echo slow')]);
      out.push((await step('j2')).stdout.trim());
      const all = await Promise.allSettled([step('s1')]);
      out.push((await step('s2')).stdout.trim());
      async function down(n) { if (n === 0) return; out.push((await step('r' + n)).stdout.trim()); await down(n - 1); }
      await down(2);
      out.push((await shell('echo c1').then(() => step('c2')).then(() => step('c3'))).stdout.trim());
      const b = await parallel('p', { x: () => step('bx'), y: () => step('by') });
      out.push(b.x.stdout.trim(), b.y.stdout.trim());
      for (let i = 1; i <= 2; i++) out.push(await twice({ n: i }));
      const handle = agent.create({ name: 'h' });
      for (const p of ['t1', 't2']) out.push(await handle.send(p));
      let release;
      const gate = new Promise((resolve) => (release = resolve));
      const waiter = gate.then(() => step('after-gate'));
      await step('before-gate');
      release();
      out.push((await waiter).stdout.trim());
      return out;
    `);
    expect(outcome.error).toBeUndefined();
    expect(outcome.value).toEqual(['0', '1', '2', 'j2', 's2', 'r2', 'r1', 'c3', 'bx', 'by', 2, 4, 'echo:t1', 'echo:t2', 'after-gate']);
  });
});
