/**
 * Launch inspection of registered functions (spec 2 AgentPreparationHook
 * rule 5): the static agent options in the source of a function's `run`,
 * reached through its context parameter, with the script's static-literal
 * rules; functions it invokes are not followed.
 */
import { describe, expect, it } from 'vitest';
import { functionAgentOptions, functionSource, launchInspectionOptions } from '../../kernel/preflight/index.js';

type Context = { agent: ((prompt: string, options?: object) => Promise<unknown>) & { create(options: object): { send(prompt: string, options?: object): Promise<unknown> } }; invoke(name: string, input: object): Promise<unknown> };

const optionsOf = (fn: unknown) => functionAgentOptions(functionSource(fn) ?? '')?.map((group) => [group.kind, group.options]);

describe('agent options in a registered function', () => {
  it('reads context.agent calls of a method, also in branches that never run', () => {
    const fn = {
      async run(input: Record<string, unknown>, context: Context) {
        if (input['never'] === 42) await context.agent('rare', { model: 'cheap', tools: ['read'] });
        return context.agent('usual', { label: 'usual' });
      },
    };
    expect(optionsOf(fn.run)).toEqual([
      ['agent', { model: 'cheap', tools: ['read'] }],
      ['agent', { label: 'usual' }],
    ]);
  });

  it('reads arrow functions, a default context parameter and call without options', () => {
    const arrow = (_input: unknown, ctx: Context) => ctx.agent('p');
    const withDefault = async (_input: unknown, ctx: Context = {} as Context) => ctx.agent('p', { retries: 1 });
    expect(optionsOf(arrow)).toEqual([['agent', {}]]);
    expect(optionsOf(withDefault)).toEqual([['agent', { retries: 1 }]]);
  });

  it('follows destructuring of the context: in the parameter, in a declaration, and a renamed agent', () => {
    const param = async (_input: unknown, { agent }: Context) => agent('p', { model: 'a' });
    const declared = async (_input: unknown, context: Context) => {
      const { agent: ask } = context;
      return ask('p', { model: 'b' });
    };
    const member = async (_input: unknown, context: Context) => {
      const ask = context.agent;
      return ask('p', { model: 'c' });
    };
    expect(optionsOf(param)).toEqual([['agent', { model: 'a' }]]);
    expect(optionsOf(declared)).toEqual([['agent', { model: 'b' }]]);
    expect(optionsOf(member)).toEqual([['agent', { model: 'c' }]]);
  });

  it('reads agent.create options only when every send passes no options', () => {
    const plain = async (_input: unknown, context: Context) => {
      const dev = context.agent.create({ name: 'dev', model: 'x' });
      return dev.send('go');
    };
    const withSendOptions = async (_input: unknown, context: Context) => {
      const dev = context.agent.create({ name: 'dev', model: 'y' });
      return dev.send('go', { timeoutMs: 5 });
    };
    expect(optionsOf(plain)).toEqual([['create', { name: 'dev', model: 'x' }]]);
    expect(optionsOf(withSendOptions)).toEqual([]);
  });

  it('leaves dynamic options, other agents and invoked functions alone', () => {
    const fn = async (input: Record<string, unknown>, context: Context) => {
      const agent = (_prompt: string, _options: object) => 1;
      agent('not the context one', { model: 'z' });
      await context.invoke('other', {});
      return context.agent('p', { model: String(input['model']) });
    };
    expect(optionsOf(fn)).toEqual([]);
  });

  it('gives up on sources it cannot parse', () => {
    expect(functionAgentOptions(functionSource(Math.max) ?? '')).toBeUndefined();
    expect(functionAgentOptions('not ( a function')).toBeUndefined();
    expect(functionSource('text')).toBeUndefined();
  });

  it('prepares an option object once across the script and the functions', () => {
    const fn = async (_input: unknown, context: Context) => context.agent('p', { model: 'm' });
    const script = [{ kind: 'agent' as const, options: { model: 'm' }, sites: ['1:1'] }];
    expect(launchInspectionOptions(script, [{ name: 'ask', source: functionSource(fn) ?? '' }])).toEqual([{ options: { model: 'm' }, where: 'agent at 1:1' }]);
    expect(launchInspectionOptions([], [{ name: 'ask', source: functionSource(fn) ?? '' }])).toEqual([{ options: { model: 'm' }, where: 'an agent call of workflow function "ask"' }]);
  });
});
