/**
 * `tools.<name>` through Pi's own executor (`ctx.executeTool`, Pi 0.99+),
 * against a double of Pi 1.x's tool-call context: which names are callable
 * (Pi's exposure rule), how an outcome becomes the script's value, that
 * TOOL_FAILED carries no tool output, and that a run's calls use the run's
 * signal. The real Pi 1.x pipeline is exercised in test/e2e/script-tools.test.ts.
 */
import type { ExtensionContext } from '@earendil-works/pi-coding-agent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { workflowTool } from '../../../plugins/host/tools/index.js';
import { callableToolNames, PiToolExecutor, type NestedToolOutcome, type ToolListing } from '../../../plugins/host/tool-executor.js';
import { createHostFixture, fakeContext, type HostFixture } from './host-fixture.js';

interface Call {
  readonly name: string;
  readonly args: unknown;
  readonly signal: AbortSignal | undefined;
  readonly abortedAtCall: boolean | undefined;
}

/** A Pi 1.x tool-call context whose `executeTool` answers from `answers` and records each call. */
function nestedContext(cwd: string, answers: Record<string, NestedToolOutcome | Error>, outputSchemas: readonly string[] = []): ExtensionContext & { calls: Call[] } {
  const calls: Call[] = [];
  return Object.assign(fakeContext(cwd), {
    calls,
    tools: Object.keys(answers).map((name) => ({ name, ...(outputSchemas.includes(name) ? { outputSchema: { type: 'object' } } : {}) })),
    async executeTool(name: string, args: unknown, options?: { signal?: AbortSignal }) {
      calls.push({ name, args, signal: options?.signal, abortedAtCall: options?.signal?.aborted });
      const answer = answers[name];
      if (answer instanceof Error) throw answer;
      if (answer === undefined) throw new Error(`unexpected call of ${name}`);
      return answer;
    },
  });
}

const text = (value: string) => [{ type: 'text', text: value }];

describe('callable tools on a Pi with tool exposure', () => {
  const listing = (tools: { name: string; exposure?: string }[], active: string[]): ToolListing =>
    ({ getAllTools: () => tools, getActiveTools: () => active }) as unknown as ToolListing;

  it('are the active direct tools and every codemode or deferred tool (Pi\'s rule)', () => {
    const pi = listing(
      [
        { name: 'read', exposure: 'direct' },
        { name: 'edit', exposure: 'direct' },
        { name: 'lookup', exposure: 'codemode' },
        { name: 'search', exposure: 'deferred' },
        { name: 'ask', exposure: 'model-only' },
        { name: 'secret', exposure: 'hidden' },
      ],
      ['read', 'ask'],
    );
    expect(callableToolNames(pi)).toEqual(['read', 'lookup', 'search']);
    const executor = new PiToolExecutor({ agentDir: '/nowhere', projectTrusted: false });
    expect(executor.refusal('lookup', pi)).toBeUndefined();
    expect(executor.refusal('edit', pi)).toMatch(/no tool "edit" is callable in this Pi session/);
    expect(executor.refusal('ask', pi)).toMatch(/no tool "ask" is callable/);
    expect(executor.refusal('workflow_status', pi)).toMatch(/workflow and subagent tools cannot be called/);
  });

  it('fall back to the built-in rule where tools report no exposure (Pi 0.87)', () => {
    const pi = listing([{ name: 'read' }, { name: 'fixture_echo' }], ['read', 'fixture_echo']);
    expect(callableToolNames(pi)).toBeUndefined();
    const executor = new PiToolExecutor({ agentDir: '/nowhere', projectTrusted: false });
    expect(executor.refusal('read', pi)).toBeUndefined();
    expect(executor.refusal('fixture_echo', pi)).toMatch(/only Pi's built-in tools/);
  });
});

describe('tools.<name> through ctx.executeTool', () => {
  let fx: HostFixture;
  beforeEach(() => {
    fx = createHostFixture();
  });
  afterEach(() => fx.close());

  /** Launches `script` in the foreground from a tool call with `ctx`; every tool `ctx` answers for is callable. */
  const run = (script: string, ctx: ExtensionContext & { tools?: readonly { name: string }[] }, signal?: AbortSignal) => {
    fx.pi.toolInfos = [...(ctx.tools ?? []).map(({ name }) => ({ name, exposure: 'codemode' })), { name: 'workflow', exposure: 'direct' }];
    return fx.call(workflowTool, { name: 'nested', script, foreground: true }, { ctx, ...(signal === undefined ? {} : { signal }) });
  };

  it('resolves a tool with an output schema to its structured content, also on error; any other tool to its text', async () => {
    const ctx = nestedContext(
      fx.harness.cwd,
      {
        bash: { result: { content: text('exit 3 output'), structuredContent: { output: 'x', exit_code: 3 } }, isError: true, durationMs: 4 },
        read: { result: { content: text('file text'), structuredContent: 'file text' }, isError: false, durationMs: 1 },
        fixture_echo: { result: { content: [...text('echo: hi'), { type: 'image' }, ...text('bye')] }, isError: false, durationMs: 1 },
      },
      ['bash', 'read'],
    );
    const result = await run(
      "return { bash: await tools.bash({ command: 'exit 3' }), read: await tools.read({ path: 'a' }), echo: await tools.fixture_echo({ text: 'hi' }) };",
      ctx,
    );
    expect(result['value']).toEqual({ bash: { output: 'x', exit_code: 3 }, read: 'file text', echo: 'echo: hi\nbye' });
    expect(ctx.calls.map(({ name, args }) => [name, args])).toEqual([
      ['bash', { command: 'exit 3' }],
      ['read', { path: 'a' }],
      ['fixture_echo', { text: 'hi' }],
    ]);
  });

  it('rejects failed, refused and blocked calls with TOOL_FAILED and only the code, never the tool output', async () => {
    const ctx = nestedContext(fx.harness.cwd, {
      // A tool without an output schema that failed, a call Pi refused before it ran, and a context Pi refuses.
      fixture_fail: { result: { content: text('secret-output') }, isError: true, durationMs: 3 },
      fixture_blocked: { result: { content: text('secret reason') }, isError: true },
      fixture_stale: new Error('This extension ctx is stale after session replacement or reload.'),
      // An output-schema tool's error without structured content rejects too.
      bash: { result: { content: text('secret-output\nCommand timed out') }, isError: true, durationMs: 1000 },
    }, ['bash']);
    const result = await run(
      `const out = [];
      for (const call of [() => tools.fixture_fail({}), () => tools.fixture_blocked({}), () => tools.fixture_stale({}), () => tools.bash({ command: 'sleep 9' })]) {
        try { await call(); } catch (error) { out.push([error.code, error.message]); }
      }
      return out;`,
      ctx,
    );
    expect(result['value']).toEqual([
      ['TOOL_FAILED', 'tools.fixture_fail failed'],
      ['TOOL_FAILED', 'tools.fixture_blocked did not run: its arguments are invalid or a tool_call handler blocked it'],
      ['TOOL_FAILED', 'tools.fixture_stale could not run: Pi refused the call (This extension ctx is stale after session replacement or reload.)'],
      ['TOOL_FAILED', 'tools.bash failed'],
    ]);
    expect(JSON.stringify(result)).not.toContain('secret');
  });

  it('passes the run\'s signal, not the launching call\'s, and journals the call so a retry replays it', async () => {
    const ctx = nestedContext(fx.harness.cwd, { read: { result: { content: text('once') }, isError: false, durationMs: 1 } });
    const launching = new AbortController();
    const failed = await run("const a = await tools.read({ path: 'a' }); throw new Error('after ' + a);", ctx, launching.signal);
    expect(failed).toMatchObject({ state: 'failed' });
    expect(ctx.calls).toHaveLength(1);
    expect(ctx.calls[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(ctx.calls[0]?.signal).not.toBe(launching.signal);
    expect(ctx.calls[0]?.abortedAtCall).toBe(false);
    // A retry without a live host tool call replays the journaled value and makes no new call.
    const child = await fx.harness.engine.retry(fx.harness.cwd, String(failed['runId']));
    expect(await child.outcome).toMatchObject({ state: 'failed', error: { message: expect.stringContaining('after once') } });
    expect(ctx.calls).toHaveLength(1);
  });
});
