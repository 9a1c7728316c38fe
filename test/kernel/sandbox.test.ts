import { afterAll, describe, expect, it } from 'vitest';
import { SandboxPool, type SandboxCall, type SandboxHandlers } from '../../kernel/sandbox/pool.js';
import type { GlobalSpec } from '../../kernel/sandbox/protocol.js';
import type { WorkflowError } from '../../kernel/errors.js';

const SITE = '__pi_extensible_workflows_site';
const GLOBALS: GlobalSpec[] = [
  { name: 'agent', kind: 'agent' },
  { name: 'shell', kind: 'effect' },
  { name: 'phase', kind: 'notify' },
  { name: 'tools', kind: 'namespace' },
  { name: 'withWorktree', kind: 'scope' },
];
const pool = new SandboxPool({ limits: { watchdogMs: 400, maxOldGenerationSizeMb: 64 } });
afterAll(() => pool.close());

/** Marks call sites the way the preflight does, for hand-written test programs (quotes and nesting aware). */
function program(body: string): string {
  const callee = /\b(agent\.create|agent|shell|phase|tools\.\w+|withWorktree)\(|\.send\(/y;
  let out = '';
  let n = 0;
  const closers: number[] = [];
  let depth = 0;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch === "'" || ch === '"' || ch === '`') {
      const end = body.indexOf(ch, i + 1);
      out += body.slice(i, end + 1);
      i = end;
      continue;
    }
    callee.lastIndex = i;
    const match = callee.exec(body);
    if (match) {
      out += `${match[0]}...${SITE}("s${++n}", [`;
      depth++;
      closers.push(depth);
      i += match[0].length - 1;
      continue;
    }
    if (ch === '(') depth++;
    if (ch === ')') {
      if (closers[closers.length - 1] === depth) {
        closers.pop();
        out += ']))';
        depth--;
        continue;
      }
      depth--;
    }
    out += ch;
  }
  return `(async () => {${out}\n})()`;
}

function recorder(reply: (call: SandboxCall) => unknown = () => null) {
  const calls: SandboxCall[] = [];
  const notes: SandboxCall[] = [];
  const handlers: SandboxHandlers = {
    call: async (call) => {
      calls.push(call);
      return JSON.stringify(await reply(call));
    },
    notify: (call) => void notes.push(call),
  };
  return { calls, notes, handlers };
}

async function run(source: string, handlers: SandboxHandlers, args: unknown = null): Promise<unknown> {
  const execution = pool.run({ program: source, args: JSON.stringify(args), globals: GLOBALS, siteGlobal: SITE }, handlers);
  return JSON.parse(await execution.result) as unknown;
}

async function failure(source: string, handlers = recorder().handlers): Promise<WorkflowError> {
  return run(source, handlers, {}).then(
    () => {
      throw new Error('expected the script to fail');
    },
    (error: unknown) => error as WorkflowError,
  );
}

describe('sandbox', () => {
  it('runs a script, routes effects as JSON and returns the value', async () => {
    const { calls, notes, handlers } = recorder((call) => (call.op === 'shell' ? { exitCode: 0, stdout: 'hi', stderr: '' } : 'done'));
    const value = await run(program(`phase('start'); const r = await shell('echo hi'); return { out: r.stdout, args };`), handlers, { n: 1 });
    expect(value).toEqual({ out: 'hi', args: { n: 1 } });
    expect(calls).toEqual([{ op: 'shell', site: 's2', scope: [], args: '["echo hi"]' }]);
    expect(notes).toEqual([{ op: 'phase', site: 's1', scope: [], args: '["start"]' }]);
  });

  it('tracks structural scope across awaits in parallel and pipeline branches', async () => {
    const { calls, handlers } = recorder(async (call) => {
      await new Promise((resolve) => setTimeout(resolve, call.args.includes('slow') ? 20 : 1));
      return call.scope.join('|');
    });
    const value = await run(
      program(`
        const p = await parallel('review', {
          a: async () => { await shell('slow'); return shell('a2'); },
          b: async () => { await shell('fast'); return shell('b2'); },
        });
        const q = await pipeline('build', { x: 1, y: 2 }, [async (v) => { await shell('s1'); return v + 1; }, (v) => v * 10]);
        return { p, q };`),
      handlers,
    );
    expect(value).toEqual({ p: { a: 'parallel:review/a', b: 'parallel:review/b' }, q: { x: 20, y: 30 } });
    expect(calls.filter((call) => call.args.includes('2')).map((call) => call.scope)).toEqual(
      expect.arrayContaining([['parallel:review/a'], ['parallel:review/b']]),
    );
    expect(calls.filter((call) => call.args === '["s1"]').map((call) => call.scope)).toEqual([['pipeline:build/x/0'], ['pipeline:build/y/0']]);
  });

  it('waits for siblings before reporting a branch failure', async () => {
    const { calls, handlers } = recorder(async (call) => {
      if (call.args.includes('bad')) throw Object.assign(new Error('boom'), {});
      await new Promise((resolve) => setTimeout(resolve, 30));
      return 'ok';
    });
    const error = await failure(program(`await parallel('p', { a: () => shell('bad'), b: () => shell('slow') });`), handlers);
    expect(error.code).toBe('INTERNAL_ERROR');
    expect(error.message).toContain('boom');
    expect(calls).toHaveLength(2);
  });

  it('delivers host errors to the script as catchable WorkflowErrors', async () => {
    const { WorkflowError } = await import('../../kernel/errors.js');
    const handlers = recorder(() => {
      throw new WorkflowError('SHELL_FAILED', 'timed out', { timeoutMs: 5 });
    }).handlers;
    const value = await run(program(`try { await shell('x'); } catch (e) { return [e.name, e.code, e.message, e.details]; }`), handlers);
    expect(value).toEqual(['WorkflowError', 'SHELL_FAILED', 'timed out', { timeoutMs: 5 }]);
    const error = await failure(program(`await shell('x');`), handlers);
    expect(error.code).toBe('SHELL_FAILED');
  });

  it('gives handles, namespaces and scopes their shapes', async () => {
    const { calls, notes, handlers } = recorder((call) => (call.op === 'withWorktree' ? { path: '/tmp/w', branch: 'wf/w' } : call.op));
    const value = await run(
      program(`
        const h = agent.create({ name: 'dev' });
        const first = await h.send('one');
        const wt = await withWorktree('w', async (ref) => [ref.path, await tools.read({ path: 'x' })]);
        let probed = 'no';
        try { 'read' in tools; } catch (e) { probed = e.code; }
        return [first, wt, probed, Object.isFrozen(h)];`),
      handlers,
    );
    expect(value).toEqual(['agent.send', ['/tmp/w', 'tools.read'], 'INVALID_METADATA', true]);
    expect(notes[0]).toMatchObject({ op: 'agent.create', args: '[{"name":"dev"}]' });
    expect(calls.find((call) => call.op === 'tools.read')?.scope).toEqual(['withWorktree:w']);
    expect(JSON.parse(calls[0]!.args)).toEqual([{ name: 'dev', scope: [], site: 's1' }, 'one']);
  });

  it('rejects primitives that are not called directly', async () => {
    const error = await failure(`(async () => { const s = shell; return s('x'); })()`);
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toContain('shell must be called directly');
  });

  it('interpolates prompts safely', async () => {
    expect(await run(program(`return prompt('Fix {{file}} given {{ facts }}', { file: 'a.ts', facts: { n: [1] } });`), recorder().handlers)).toBe(
      'Fix a.ts given {\n  "n": [\n    1\n  ]\n}',
    );
    expect((await failure(program(`return prompt('{{missing}}', {});`))).message).toContain('{{missing}}');
    expect((await failure(program(`return prompt('{{p}}', { p: shell('x') });`))).message).toContain('await it first');
  });

  it('blocks escapes and non-determinism', async () => {
    const cases: [string, string][] = [
      ['this.constructor.constructor("return process")()', 'not a valid constructor'],
      ['(async function(){}).constructor("return 1")', 'not a valid constructor'],
      ['(function*(){}).constructor("return 1")', 'not a valid constructor'],
      ['Function("return 1")()', 'Function is not available'],
      ['Object.prototype.polluted = 1', 'not extensible'],
      ['args.x = 1', 'not extensible'],
      ['Date.now()', 'secure mode'],
      ['new Date()', 'secure mode'],
      ['Math.random()', 'secure mode'],
      ['shell.extra = 1', 'not extensible'],
      // Undeclared names read as undefined inside a compartment; the preflight rejects them before this point.
      ['process.exit(1)', "reading 'exit'"],
      ['require("fs")', 'require is not a function'],
    ];
    for (const [expression, message] of cases) {
      const error = await failure(`(async () => { return ${expression}; })()`);
      expect(error.message, expression).toContain(message);
    }
    expect((await failure(`(async () => eval('1'))()`)).message).toMatch(/eval/);
  });

  it('ends runaway loops, memory bombs and promises that never settle', async () => {
    const loop = await failure(`(async () => { for (;;) {} })()`);
    expect(loop.details).toMatchObject({ reason: 'cpu_watchdog' });
    const bomb = await failure(`(async () => { const a = []; for (;;) a.push(new Array(1e6).fill(7)); })()`);
    expect(bomb.details?.['reason']).toMatch(/memory_limit|cpu_watchdog/);
    const stalled = await failure(`(async () => { await new Promise(() => {}); })()`);
    expect(stalled.details).toMatchObject({ reason: 'never_settles' });
  }, 30_000);

  it('enforces the RPC limit on arguments and results', async () => {
    const small = new SandboxPool({ limits: { maxValueBytes: 1000 }, warm: false });
    try {
      const args = small.run({ program: program(`await shell('x'.repeat(2000));`), args: 'null', globals: GLOBALS, siteGlobal: SITE }, recorder().handlers);
      await expect(args.result).rejects.toMatchObject({ code: 'RPC_LIMIT_EXCEEDED' });
      const result = small.run({ program: `(async () => 'y'.repeat(2000))()`, args: 'null', globals: GLOBALS, siteGlobal: SITE }, recorder().handlers);
      await expect(result.result).rejects.toMatchObject({ code: 'RPC_LIMIT_EXCEEDED' });
    } finally {
      await small.close();
    }
  });

  it('terminates on request', async () => {
    const execution = pool.run({ program: program(`await shell('forever');`), args: 'null', globals: GLOBALS, siteGlobal: SITE }, recorder(() => new Promise(() => {})).handlers);
    const outcome = expect(execution.result).rejects.toMatchObject({ code: 'CANCELLED' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await execution.terminate();
    await outcome;
  });
});
