import { afterAll, describe, expect, it } from 'vitest';
import { SandboxPool } from '../../kernel/sandbox/pool.js';
import { WorkflowError } from '../../kernel/errors.js';
import { BUILTIN_GLOBALS } from '../../kernel/preflight/names.js';
import { compile, failure, raw, recorder, run, start } from '../support/sandbox.js';

const pool = new SandboxPool({ limits: { watchdogMs: 400, maxOldGenerationSizeMb: 64, maxRssMb: 512 } });
afterAll(() => pool.close());

const shellReply = (call: { op: string; args: readonly unknown[] }) => (call.op === 'shell' ? { exitCode: 0, stdout: String(call.args[0]), stderr: '' } : call.op);

describe('sandbox process', () => {
  it('runs a script, routes effects as JSON with their keys and returns the value', async () => {
    const { calls, notes, handlers } = recorder(shellReply);
    const value = await run(pool, compile(`phase('start'); const r = await shell('echo hi'); return { out: r.stdout, args };`), handlers, { args: { n: 1 } });
    expect(value).toEqual({ out: 'echo hi', args: { n: 1 } });
    expect(calls).toEqual([{ op: 'shell', site: '1:33', scope: [], key: '|1:33#0', args: ['echo hi'] }]);
    expect(notes).toEqual([{ op: 'phase', site: '1:1', scope: [], args: ['start'] }]);
  });

  it('tracks structural scope across awaits in parallel and pipeline branches', async () => {
    const { calls, handlers } = recorder(async (call) => {
      await new Promise((resolve) => setTimeout(resolve, call.args.includes('slow') ? 20 : 1));
      return call.scope.join('|');
    });
    const value = await run(
      pool,
      compile(`
        const p = await parallel('review', {
          a: async () => { await shell('slow'); return shell('a2'); },
          b: async () => { await shell('fast'); return shell('b2'); },
        });
        const q = await pipeline('build', { x: 1, y: 2 }, [async (v) => { await shell('s1'); return v + 1; }, (v) => v * 10]);
        return { p, q };`),
      handlers,
    );
    expect(value).toEqual({ p: { a: 'parallel:review/a', b: 'parallel:review/b' }, q: { x: 20, y: 30 } });
    expect(calls.filter((call) => call.args[0] === 's1').map((call) => [call.scope, call.key])).toEqual([
      [['pipeline:build/x/0'], 'pipeline:build/x/0|6:81#0'],
      [['pipeline:build/y/0'], 'pipeline:build/y/0|6:81#0'],
    ]);
  });

  it('delivers host errors to the script as catchable WorkflowErrors', async () => {
    const handlers = recorder(() => {
      throw new WorkflowError('SHELL_FAILED', 'timed out', { timeoutMs: 5 });
    }).handlers;
    const value = await run(pool, compile(`try { await shell('x'); } catch (e) { return [e.name, e.code, e.message, e.details]; }`), handlers);
    expect(value).toEqual(['WorkflowError', 'SHELL_FAILED', 'timed out', { timeoutMs: 5 }]);
    expect((await failure(pool, compile(`await shell('x');`), handlers)).code).toBe('SHELL_FAILED');
  });

  it('gives handles, namespaces and scopes their shapes', async () => {
    const { calls, notes, handlers } = recorder((call) => (call.op === 'withWorktree' ? { path: '/tmp/w', branch: 'wf/w' } : call.op));
    const value = await run(
      pool,
      compile(`
        const h = agent.create({ name: 'dev' });
        const first = await h.send('one');
        const wt = await withWorktree('w', async (ref) => [ref.path, await tools.read({ path: 'x' })]);
        return [first, wt, Object.isFrozen(h)];`),
      handlers,
    );
    expect(value).toEqual(['agent.send', ['/tmp/w', 'tools.read'], true]);
    expect(notes[0]).toMatchObject({ op: 'agent.create', args: [{ name: 'dev' }] });
    expect(calls.find((call) => call.op === 'tools.read')?.scope).toEqual(['withWorktree:w']);
    expect(calls[0]).toMatchObject({ op: 'agent.send', key: '|3:31@dev#0', args: [{ name: 'dev', scope: [], site: '2:19' }, 'one'] });
  });

  it('refuses a second turn of a handle while one runs, before it gets a key', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { calls, handlers } = recorder(async (call) => {
      await gate;
      return call.args[1] ?? null;
    });
    const execution = start(
      pool,
      compile(`
        const h = agent.create({ name: 'h' });
        const one = h.send('one');
        const two = await h.send('two').catch((e) => e.message);
        return [await one, two, await h.send('three')];`),
      handlers,
    );
    setTimeout(release, 50);
    expect(await execution.result).toEqual(['one', 'agent handle "h" is already running a turn; await each send', 'three']);
    // The refused send was never keyed: the third turn's key follows the first's slot numbering.
    expect(calls.map((call) => call.key)).toEqual(['|3:23@h#0', '|5:41@h#0']);
  });

  it('rejects primitives that are not called through the marker of their own site', async () => {
    expect((await failure(pool, raw(`(async () => { const s = shell; return s('x'); })()`))).message).toContain('shell must be called directly');
  });

  it('interpolates prompts safely', async () => {
    expect(await run(pool, compile(`return prompt('Fix {file} given {facts} {{as is}}', { file: 'a.ts', facts: { n: [1] } });`), recorder().handlers)).toBe(
      'Fix a.ts given {\n  "n": [\n    1\n  ]\n} {as is}',
    );
    expect((await failure(pool, compile(`return prompt('{missing}', {});`))).message).toContain('{missing}');
    expect((await failure(pool, compile(`return prompt('{p}', { p: shell('x') });`))).message).toContain('await it first');
    // Runs of script language 1 keep the `{{name}}` form.
    expect(await run(pool, compile(`return prompt('Fix {{file}} {keep}', { file: 'a.ts', unused: 1 });`), recorder().handlers, { promptSyntax: 'legacy' })).toBe('Fix a.ts {keep}');
  });

  it('blocks escapes and non-determinism', async () => {
    const cases: [string, string][] = [
      ['(async function(){}).constructor("return 1")', 'not a valid constructor'],
      ['(function*(){}).constructor("return 1")', 'not a valid constructor'],
      ['Function("return 1")()', 'Function is not available'],
      ['Object.prototype.polluted = 1', 'not extensible'],
      // The realm's own words ("secure mode Calling %SharedDate%.now() throws") become the way out.
      ['Date.now()', 'Date.now() is not available: a workflow is evaluated again on resume and retry'],
      ['new Date()', 'new Date() is not available'],
      ['Math.random()', 'Math.random() is not available'],
      ['shell.extra = 1', 'not extensible'],
      // Undeclared names read as undefined inside a compartment; the preflight rejects them before this point.
      ['process.exit(1)', "reading 'exit'"],
      ['require("fs")', 'require is not a function'],
    ];
    expect((await failure(pool, raw(`(async () => { args.x = 1; })()`), recorder().handlers, { args: {} })).message).toContain('not extensible');
    for (const [expression, message] of cases) {
      const error = await failure(pool, raw(`(async () => { return ${expression}; })()`));
      expect(error.message, expression).toContain(message);
    }
    expect((await failure(pool, raw(`(async () => eval('1'))()`))).message).toMatch(/eval/);
  });

  it('evaluates the program as strict code with an undefined this; the marker is no global', async () => {
    const value = await run(pool, raw(`(async () => [typeof this, typeof globalThis.__pi_extensible_workflows_site, typeof __pi_extensible_workflows_site, (() => typeof this)()])()`), recorder().handlers);
    expect(value).toEqual(['undefined', 'undefined', 'function', 'undefined']);
    // A forged site (not one the preflight wrote) is refused before any call.
    const { calls, handlers } = recorder();
    const forged = await failure(pool, raw(`(async () => shell(...__pi_extensible_workflows_site('9:9', ['x'])))()`), handlers);
    expect(forged.message).toContain('site the preflight did not write');
    const huge = await failure(pool, { program: `(async () => shell(...__pi_extensible_workflows_site('1:1'.repeat(10), ['x'])))()`, sites: { '1:1': 'shell' } });
    expect(huge.message).toContain('site the preflight did not write');
    // A site of another callee cannot name this call.
    const other = await failure(pool, { program: `(async () => shell(...__pi_extensible_workflows_site('1:1', ['x'])))()`, sites: { '1:1': 'agent' } });
    expect(other.message).toContain('shell must be called directly');
    expect(calls).toEqual([]);
  });

  it('provides every builtin the preflight accepts, so a name it lets through is never undefined at run time', async () => {
    const names = [...BUILTIN_GLOBALS].filter((name) => name !== 'undefined');
    const value = await run(pool, raw(`(async () => [${names.map((name) => `typeof ${name}`).join(', ')}])()`), recorder().handlers);
    expect(names.filter((_name, index) => (value as string[])[index] === 'undefined')).toEqual([]);
  });

  it('ends runaway loops, memory bombs and promises that never settle', async () => {
    const loop = await failure(pool, raw(`(async () => { for (;;) {} })()`));
    expect(loop.details).toMatchObject({ reason: 'cpu_watchdog' });
    // A watchdog long enough that only the memory ceilings can stop these.
    const memory = new SandboxPool({ limits: { watchdogMs: 20_000, maxOldGenerationSizeMb: 64, maxRssMb: 512 }, warm: false });
    try {
      const bomb = await failure(memory, raw(`(async () => { const a = []; for (;;) a.push(new Array(1e6).fill(7)); })()`));
      expect(bomb.details).toMatchObject({ reason: 'memory_limit' });
      const big = await failure(memory, raw(`(async () => { const a = new Array(1e8).fill(0.5); return a.length; })()`));
      expect(big.details).toMatchObject({ reason: 'memory_limit' });
      // ArrayBuffers live outside the V8 heap: the resident-memory ceiling stops them.
      const buffers = await failure(memory, raw(`(async () => { const a = []; for (;;) a.push(new Uint8Array(64 * 1024 * 1024).fill(1)); })()`));
      expect(buffers.details).toMatchObject({ reason: 'memory_limit' });
    } finally {
      await memory.close();
    }
    const stalled = await failure(pool, raw(`(async () => { await new Promise(() => {}); })()`));
    expect(stalled.details).toMatchObject({ reason: 'never_settles' });
  }, 60_000);

  it('judges the script by its own CPU time: log() while spinning does not feed the watchdog', async () => {
    const { notes, handlers } = recorder();
    // Large messages, so that the batched notes reach the host while the loop spins.
    const spin = await failure(pool, compile(`while (true) { for (let k = 0; k < 1e6; k++) {} log('tick'.repeat(2000)); }`), handlers);
    expect(spin.details).toMatchObject({ reason: 'cpu_watchdog' });
    expect(notes.length).toBeGreaterThan(0);
  }, 30_000);

  it('logs any values as console.log shows them, and throws phase() errors into the script, where it can catch them', async () => {
    const { notes, handlers } = recorder();
    const value = await run(pool, compile(`const out = []; log(42); log({ a: [1] }, 'b'); log(); try { phase(' ') } catch (e) { out.push(e.message) } log('ok'); return out;`), handlers);
    expect(value).toEqual(['phase needs a non-empty name']);
    expect(notes.map((note) => note.args)).toEqual([['42'], ['{"a":[1]} b'], [''], ['ok']]);
  });

  it('enforces the RPC limit on arguments and results', async () => {
    const small = new SandboxPool({ limits: { maxValueBytes: 1000 }, warm: false });
    try {
      await expect(run(small, compile(`await shell('x'.repeat(2000));`), recorder().handlers)).rejects.toMatchObject({ code: 'RPC_LIMIT_EXCEEDED' });
      await expect(run(small, raw(`(async () => 'y'.repeat(2000))()`), recorder().handlers)).rejects.toMatchObject({ code: 'RPC_LIMIT_EXCEEDED' });
    } finally {
      await small.close();
    }
  });

  it('runs a reply’s commit after the reply is written and before the next message is handled; a throwing commit fails the run', async () => {
    const order: string[] = [];
    const base = recorder((call) => call.args[0]);
    const committing = {
      ...base.handlers,
      call: async (call: Parameters<typeof base.handlers.call>[0]) => {
        order.push(`call ${String(call.args[0])}`);
        const outcome = await base.handlers.call(call);
        return { ...outcome, commit: () => void order.push(`commit ${String(call.args[0])}`) };
      },
    };
    expect(await run(pool, compile(`const a = await shell('a'); const b = await shell('b'); return [a, b];`), committing)).toEqual(['a', 'b']);
    expect(order).toEqual(['call a', 'commit a', 'call b', 'commit b']);

    const failing = {
      ...base.handlers,
      call: async (call: Parameters<typeof base.handlers.call>[0]) => ({
        ...(await base.handlers.call(call)),
        commit: () => {
          throw new WorkflowError('INTERNAL_ERROR', 'cannot append to journal.jsonl: disk full');
        },
      }),
    };
    await expect(run(pool, compile(`await shell('a'); await shell('b'); return 1;`), failing)).rejects.toMatchObject({ code: 'INTERNAL_ERROR', message: /disk full/ });
  });

  it('terminates on request', async () => {
    const execution = start(pool, compile(`await shell('forever');`), recorder(() => new Promise(() => {})).handlers);
    const outcome = expect(execution.result).rejects.toMatchObject({ code: 'CANCELLED' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await execution.terminate();
    await outcome;
  });
});
