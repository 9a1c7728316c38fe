import { describe, expect, it } from 'vitest';
import { preflight } from '../../kernel/preflight/index.js';

const OPTIONS = {
  primitives: ['agent', 'shell', 'prompt', 'parallel', 'pipeline', 'phase', 'log', 'evidence', 'checkpoint', 'withWorktree', 'tools', 'args'],
  effects: ['evidence', 'checkpoint', 'withWorktree'],
  functions: ['reviewLoop', 'summarize', 'unused'],
};

const inspect = (source: string) => preflight(source, OPTIONS);

describe('preflight: launch facts', () => {
  it('lists sorted unique tool names and registered functions called', () => {
    const result = inspect('await tools.write({});\nawait tools.read({});\nawait tools.read({ path: "b" });\nawait summarize({});\nawait reviewLoop({});\nawait summarize({})');
    expect(result.toolNames).toEqual(['read', 'write']);
    expect(result.functionCalls).toEqual(['reviewLoop', 'summarize']);
  });

  it('ignores shadowed tools and functions', () => {
    const result = inspect('function f(tools, summarize) { return [tools.read(), summarize()] }');
    expect(result.toolNames).toEqual([]);
    expect(result.functionCalls).toEqual([]);
  });
});

describe('preflight: static agent options (rule 10)', () => {
  it('collects literal options, including nested values, negatives and plain templates', () => {
    const result = inspect(
      'await agent("p", { model: "fast", "retries": 2, timeoutMs: -1, role: `reviewer`, tools: ["read", null, true], extra: { a: { b: [1.5] } } })',
    );
    expect(result.staticAgentOptions).toEqual([
      {
        kind: 'agent',
        options: { model: 'fast', retries: 2, timeoutMs: -1, role: 'reviewer', tools: ['read', null, true], extra: { a: { b: [1.5] } } },
        sites: ['1:7'],
      },
    ]);
  });

  it('accepts string and number literal keys', () => {
    expect(inspect('await agent("p", { "a-b": 1, 2: "x" })').staticAgentOptions[0]?.options).toEqual({ 'a-b': 1, '2': 'x' });
  });

  it('collects {} for an agent call without options', () => {
    expect(inspect('await agent("p")').staticAgentOptions).toEqual([{ kind: 'agent', options: {}, sites: ['1:7'] }]);
  });

  it('leaves a call with nothing literal in its options to the runtime', () => {
    const dynamic = [
      'const m = "x";\nawait agent("p", { model: m })',
      'await agent("p", { label: `a${1}` })',
      'await agent("p", { retries: 1 + 1 })',
      'const o = {};\nawait agent("p", o)',
      'const o = {};\nawait agent("p", { ...o })',
      'await agent("p", { ["model"]: "x" })',
      'const model = "x";\nawait agent("p", { model })',
      'await agent("p", { timeoutMs: 1e999 })',
      'await agent("p", { tools: ["read", , "x"] })',
      'await agent("p", { pattern: /x/ })',
      'await agent("p", { n: 1n })',
      'await agent("p", { get model() { return "x" } })',
      'await agent("p", { __proto__: { model: "x" } })',
      'const args2 = ["p", {}];\nawait agent(...args2)',
      'await agent("p", { nested: { outputSchema: args } })',
    ];
    for (const source of dynamic) expect(inspect(source).staticAgentOptions, source).toEqual([]);
  });

  it('omits a dynamic outputSchema and keeps the rest', () => {
    const result = inspect('const schema = { type: "object" };\nawait agent("p", { model: "m", outputSchema: schema });\nawait agent("q", { outputSchema: { type: "string" } })');
    expect(result.staticAgentOptions).toEqual([
      { kind: 'agent', options: { model: 'm' }, sites: ['2:7'] },
      { kind: 'agent', options: { outputSchema: { type: 'string' } }, sites: ['3:7'] },
    ]);
  });

  it('lists identical option objects once with all their sites', () => {
    const result = inspect('await agent("a", { model: "m", retries: 1 });\nawait agent("b", { retries: 1, model: "m" });\nawait agent("c", { model: "other" });\nawait agent("d")\nawait agent("e", {})');
    expect(result.staticAgentOptions).toEqual([
      { kind: 'agent', options: { model: 'm', retries: 1 }, sites: ['1:7', '2:7'] },
      { kind: 'agent', options: { model: 'other' }, sites: ['3:7'] },
      { kind: 'agent', options: {}, sites: ['4:7', '5:7'] },
    ]);
  });

  it('collects unreachable calls and calls in uncalled functions', () => {
    const result = inspect('return 1;\nfunction never() { return agent("x", { model: "a" }) }\nawait agent("y", { model: "b" })');
    expect(result.staticAgentOptions.map((entry) => entry.options)).toEqual([{ model: 'a' }, { model: 'b' }]);
  });

  it('collects agent.create options when every use sends without options', () => {
    const result = inspect(
      [
        'await agent.create({ name: "direct" }).send("p");',
        'const h = agent.create({ name: "handle", model: "m" });',
        'await h.send("a");',
        'const run = async () => h.send("b");',
        'const unused = agent.create({ name: "unused" });',
      ].join('\n'),
    );
    expect(result.staticAgentOptions).toEqual([
      { kind: 'create', options: { name: 'direct' }, sites: ['1:7'] },
      { kind: 'create', options: { name: 'handle', model: 'm' }, sites: ['2:11'] },
      { kind: 'create', options: { name: 'unused' }, sites: ['5:16'] },
    ]);
  });

  it('leaves agent.create to the runtime when a use may pass send options or the handle escapes', () => {
    const runtime = [
      'await agent.create({ name: "a" }).send("p", { timeoutMs: 5 })',
      'const h = agent.create({ name: "a" });\nawait h.send("p", { outputSchema: {} })',
      'const h = agent.create({ name: "a" });\nconst p = ["x"];\nawait h.send(...p)',
      'const h = agent.create({ name: "a" });\nconst other = h',
      'let h = agent.create({ name: "a" });\nawait h.send("p")',
      'const h = agent.create({ name: "a" });\nawait h["send"]("p")',
      'const { send } = agent.create({ name: "a" })',
      'const hs = [agent.create({ name: "a" })]',
      'const n = "a";\nawait agent.create({ name: n }).send("p")',
      'await agent.create().send("p")',
    ];
    for (const source of runtime) expect(inspect(source).staticAgentOptions, source).toEqual([]);
  });

  it('keeps agent and agent.create option objects apart', () => {
    const result = inspect('await agent("p", { model: "m" });\nawait agent.create({ model: "m" }).send("q")');
    expect(result.staticAgentOptions.map((entry) => entry.kind)).toEqual(['agent', 'create']);
  });

  it('freezes what it returns', () => {
    const result = inspect('await agent("p", { tools: ["read"] })');
    expect(Object.isFrozen(result)).toBe(true);
    expect(Object.isFrozen(result.staticAgentOptions[0]?.options.tools)).toBe(true);
  });
});
