import { parseAst } from 'rollup/parseAst';
import { describe, expect, it } from 'vitest';
import { SITE_MARKER, preflight } from '../../kernel/preflight/index.js';

const OPTIONS = {
  primitives: ['agent', 'shell', 'prompt', 'parallel', 'pipeline', 'phase', 'log', 'evidence', 'checkpoint', 'withWorktree', 'tools', 'args'],
  effects: ['evidence', 'checkpoint', 'withWorktree'],
  functions: ['reviewLoop'],
};

const site = (id: string): string => `...${SITE_MARKER}("${id}", [`;

/** Runs a program in the test process with recording stand-ins for the globals it uses. */
async function runProgram(program: string): Promise<{ value: unknown; calls: string[] }> {
  const calls: string[] = [];
  let pending: string | undefined;
  const take = (name: string, args: unknown[]): string => {
    const record = `${pending ?? 'NO SITE'} ${name}(${JSON.stringify(args).slice(1, -1)})`;
    pending = undefined;
    calls.push(record);
    return record;
  };
  const marker = (id: string, args: unknown[]): unknown[] => {
    pending = id;
    return args;
  };
  const handle = { send: async (...args: unknown[]) => take('send', args) };
  const agent = Object.assign(async (...args: unknown[]) => take('agent', args), { create: (...args: unknown[]) => (take('agent.create', args), handle) });
  const tools = { read: async (...args: unknown[]) => take('tools.read', args) };
  const prompt = (...args: unknown[]): string => take('prompt', args);
  const shell = async (...args: unknown[]) => take('shell', args);
  // The test process stands in for the sandbox.
  const evaluate = new Function('agent', 'tools', 'prompt', 'shell', SITE_MARKER, `return ${program}`) as (...globals: unknown[]) => Promise<unknown>;
  const value = await evaluate(agent, tools, prompt, shell, marker);
  return { value, calls };
}

describe('preflight: call sites (rule 7)', () => {
  it('identifies every primitive, function, agent.create, tools.X and .send call by line and column', () => {
    const source = [
      'const h = agent.create({ name: "n" });',
      'await h.send("a");',
      'const r = await agent("x");',
      '  await tools.read({ path: "p" });',
      'log("l"); await reviewLoop({});',
      'const other = { send: (x) => x };',
      'other.send(1); other?.send(2); other.send?.(3);',
    ].join('\n');
    const result = preflight(source, OPTIONS);
    expect(Object.values(result.sites)).toEqual([
      { id: '1:11', line: 1, column: 11, callee: 'agent.create' },
      { id: '2:9', line: 2, column: 9, callee: 'send' },
      { id: '3:17', line: 3, column: 17, callee: 'agent' },
      { id: '4:9', line: 4, column: 9, callee: 'tools.read' },
      { id: '5:1', line: 5, column: 1, callee: 'log' },
      { id: '5:17', line: 5, column: 17, callee: 'reviewLoop' },
      { id: '7:7', line: 7, column: 7, callee: 'send' },
      { id: '7:23', line: 7, column: 23, callee: 'send' },
      { id: '7:38', line: 7, column: 38, callee: 'send' },
    ]);
    expect(Object.isFrozen(result.sites)).toBe(true);
  });

  it('names the send of a chained agent.create(...).send(...) apart from the create', () => {
    const result = preflight('await agent.create({ name: "n" }).send("p")', OPTIONS);
    expect(Object.values(result.sites).map((entry) => `${entry.id} ${entry.callee}`)).toEqual(['1:7 agent.create', '1:35 send']);
  });

  it('leaves shadowed primitives, builtins, methods and computed sends alone', () => {
    const source = 'const shell = (x) => x;\nshell("a"); parseInt("1"); ({ agent: (x) => x }).agent(1);\nconst o = { send() {} };\no["send"]();\n{ const agent = { create: () => 1 }; agent.create() }';
    const result = preflight(source, OPTIONS);
    expect(result.sites).toEqual({});
    expect(result.program).toBe(`(async () => {${source}\n})()`);
  });
});

describe('preflight: the rewritten program (rule 8)', () => {
  it('wraps every site argument list, nested sites included, and still parses', () => {
    const source = "const r = await agent(prompt('Review {x}', { x: await tools.read({ path: 'a' }) }), { model: 'm' });\nreturn r;";
    const result = preflight(source, OPTIONS);
    expect(result.program).toBe(
      `(async () => {const r = await agent(${site('1:17')}prompt(${site('1:23')}'Review {x}', { x: await tools.read(${site('1:55')}{ path: 'a' }])) }])), { model: 'm' }]));\nreturn r;\n})()`,
    );
    expect(() => parseAst(result.program)).not.toThrow();
    expect(result.source).toBe(source);
  });

  it('handles zero arguments, spreads, trailing commas, comments and parenthesized callees', () => {
    const source = 'const cmd = ["ls"];\nawait shell(...cmd,);\nlog();\nawait (agent) /* ( */ (\n  "x",\n);';
    const { program } = preflight(source, OPTIONS);
    expect(program).toBe(
      `(async () => {const cmd = ["ls"];\nawait shell(${site('2:7')}...cmd,]));\nlog(${site('3:1')}]));\nawait (agent) /* ( */ (${site('4:8')}\n  "x",\n]));\n})()`,
    );
    expect(() => parseAst(program)).not.toThrow();
  });

  it('hands each site to the runtime just before its call, with the same arguments', async () => {
    const source = [
      'const rest = [2, 3];',
      "const text = prompt('t', { v: await tools.read({ path: 'a' }) });",
      'const h = agent.create({ name: "n" });',
      'await h.send(text);',
      'await shell(1, ...rest,);',
      'return await agent(prompt("p"), { model: "m" });',
    ].join('\n');
    const { value, calls } = await runProgram(preflight(source, OPTIONS).program);
    expect(calls).toEqual([
      '2:37 tools.read({"path":"a"})',
      '2:14 prompt("t",{"v":"2:37 tools.read({\\"path\\":\\"a\\"})"})',
      '3:11 agent.create({"name":"n"})',
      '4:9 send("2:14 prompt(\\"t\\",{\\"v\\":\\"2:37 tools.read({\\\\\\"path\\\\\\":\\\\\\"a\\\\\\"})\\"})")',
      '5:7 shell(1,2,3)',
      '6:20 prompt("p")',
      '6:14 agent("6:20 prompt(\\"p\\")",{"model":"m"})',
    ]);
    expect(value).toBe('6:14 agent("6:20 prompt(\\"p\\")",{"model":"m"})');
  });

  it('keeps every line where it was', () => {
    const source = 'await agent(\n  "a",\n  { model: "m" },\n);\n\nawait shell("x")';
    const lines = preflight(source, OPTIONS).program.split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[5]).toBe(`await shell(${site('6:7')}"x"]))`);
  });
});
