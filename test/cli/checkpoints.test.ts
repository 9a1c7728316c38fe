/**
 * Finding checkpoints before a headless launch or an export
 * (plugins/host/headless-checkpoints.ts): in a registered function's source, in what it invokes,
 * and in a script's call sites.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { beginWorkflowExtensionLoading, registerWorkflowExtension, resetWorkflowRegistry, type WorkflowFunction } from '../../kernel/index.js';
import { checkpointingFunction, functionFacts, refuseCheckpoints } from '../../plugins/host/headless-checkpoints.js';
import { thrownBy } from '../support/engine-harness.js';

function register(functions: Record<string, WorkflowFunction['run']>): void {
  beginWorkflowExtensionLoading();
  registerWorkflowExtension({
    version: '1.0.0',
    headline: 'Fixture',
    functions: Object.fromEntries(Object.entries(functions).map(([name, run]) => [name, { description: name, input: { type: 'object' }, output: {}, run }])),
  });
}

describe('checkpoints in workflows that would run headless', () => {
  afterEach(() => resetWorkflowRegistry());

  it('reads methods, functions and arrows; calls, member calls and destructuring count, data fields do not', () => {
    const cases: [unknown, boolean][] = [
      [{ async run(_input: unknown, context: { checkpoint(input: unknown): Promise<boolean> }) { return context.checkpoint({}); } }.run, true],
      [async function named(_input: unknown, { checkpoint }: { checkpoint(input: unknown): Promise<boolean> }) { return checkpoint({}); }, true],
      [async (_input: unknown, ctx: { checkpoint?: () => unknown }) => ctx.checkpoint?.(), true],
      [(input: { checkpoint?: string }) => ({ saved: input.checkpoint, checkpoint: 'field' }), false],
      [function plain() { return 'checkpoint(this is text)'; }, false],
    ];
    for (const [fn, expected] of cases) expect(functionFacts(fn)?.checkpoint, String(fn)).toBe(expected);
  });

  it('follows invoke with a literal name, transitively; an unparsable source proves nothing', () => {
    register({
      asks: async (_input, context) => (await context.checkpoint({ name: 'n', prompt: 'p', context: {} })) as never,
      middle: async (_input, context) => context.invoke('asks', {}),
      outer: async (_input, context) => context.invoke('middle', {}, 'label'),
      loops: async (_input, context) => context.invoke('loops', {}),
      calm: async () => 1,
      bound: function (this: unknown) {
        return 1;
      }.bind(null),
    });
    expect(checkpointingFunction(['outer'])).toBe('asks');
    expect(checkpointingFunction(['calm', 'loops'])).toBeUndefined();
    expect(functionFacts(Function.prototype.bind.call(() => 1, null))).toBeUndefined();
    expect(checkpointingFunction(['bound', 'missing'])).toBeUndefined();
  });

  it('refuses a script that calls checkpoint or a function that uses one', () => {
    register({ asks: async (_input, context) => (await context.checkpoint({ name: 'n', prompt: 'p', context: {} })) as never });
    expect(thrownBy(() => refuseCheckpoints([{ callee: 'agent' }, { callee: 'checkpoint' }], []))).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('the script calls checkpoint(...)') });
    expect(thrownBy(() => refuseCheckpoints([{ callee: 'asks' }], ['asks']))).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('"asks" uses checkpoint') });
    expect(() => refuseCheckpoints([{ callee: 'agent' }], [])).not.toThrow();
  });
});
