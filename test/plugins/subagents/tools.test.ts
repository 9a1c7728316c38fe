/**
 * The five subagent tools as Pi sees them: closed parameter schemas, output
 * schemas that every result (and the error object) validates against, the
 * read-only hint on `subagents_inspect`, exposure from `codemodeTools`;
 * results as `details` on Pi 0.87 and as `structuredContent` where Pi reads
 * them, failures as thrown `CODE: message` errors or `isError` results.
 */
import type { ExtensionContext, ToolDefinition } from '@earendil-works/pi-coding-agent';
import { Ajv } from 'ajv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ERROR_OUTPUT } from '../../../lib/pi-tools/results.js';
import { registerSubagentTools, SUBAGENT_TOOL_NAMES } from '../../../plugins/subagents/tools/index.js';
import type { SubagentsSession } from '../../../plugins/subagents/session.js';
import { deferred, waitFor } from '../../support/engine-harness.js';
import { fakeContext, fakePi, type FakePi } from '../host/host-fixture.js';
import { createSubagentsFixture, type SubagentsFixture } from './fixture.js';

let f: SubagentsFixture;
let pi: FakePi;
let session: SubagentsSession | undefined;
beforeEach(async () => {
  f = await createSubagentsFixture();
  pi = fakePi();
  session = f.session;
  registerSubagentTools(pi.api, () => session, 'all');
});
afterEach(async () => {
  await f.close();
});

type Definition = ToolDefinition & { outputSchema: object; exposure: string; annotations?: { readOnlyHint?: boolean } };
const tool = (name: string): Definition => pi.tools.get(name) as Definition;
const ajv = new Ajv({ strict: false });
let calls = 0;

/** Runs a tool as Pi 0.87 does: details, or a thrown error whose details the tool_result handler fills. */
async function call(name: string, params: unknown, ctx: ExtensionContext = fakeContext(f.cwd)): Promise<Record<string, unknown>> {
  const definition = tool(name);
  const id = `call-${++calls}`;
  try {
    const result = await definition.execute(id, params as never, undefined, undefined, ctx);
    expect(ajv.validate(definition.outputSchema, result.details), `${name}: ${ajv.errorsText()}`).toBe(true);
    return result.details as Record<string, unknown>;
  } catch (error) {
    const [handler] = pi.handlers.get('tool_result') ?? [];
    const patched = (await handler?.({ toolCallId: id, isError: true }, ctx)) as { details: unknown } | undefined;
    expect(ajv.validate(ERROR_OUTPUT, patched?.details)).toBe(true);
    expect(ajv.validate(definition.outputSchema, patched?.details)).toBe(true);
    return { thrown: (error as Error).message, ...(patched?.details as object) };
  }
}

describe('the subagent tools', () => {
  it('registers five tools with closed parameters, output schemas, the read-only hint on inspect only, and codemodeTools exposure', () => {
    expect([...pi.tools.keys()]).toEqual([...SUBAGENT_TOOL_NAMES]);
    for (const name of SUBAGENT_TOOL_NAMES) {
      const definition = tool(name);
      expect((JSON.parse(JSON.stringify(definition.parameters)) as { additionalProperties?: unknown }).additionalProperties, name).toBe(false);
      expect(definition.outputSchema).toMatchObject({ anyOf: [expect.any(Object), ERROR_OUTPUT] });
      expect(definition.exposure).toBe('direct');
      expect(definition.annotations?.readOnlyHint === true, name).toBe(name === 'subagents_inspect');
    }
    const readOnly = fakePi();
    registerSubagentTools(readOnly.api, () => session, 'read-only');
    expect([...readOnly.tools.values()].map((definition) => [definition.name, (definition as Definition).exposure])).toEqual([
      ['subagents_run', 'model-only'],
      ['subagents_inspect', 'direct'],
      ['subagents_steer', 'model-only'],
      ['subagents_stop', 'model-only'],
      ['subagents_retry', 'model-only'],
    ]);
  });

  it('every result validates against its output schema: run, inspect one and all, steer, stop, retry', async () => {
    const steered = deferred<string>();
    f.script = async (agent) => {
      if (agent.prompt === 'Wait') steered.resolve(await agent.nextSteer());
      return { result: `done:${agent.prompt}` };
    };
    const started = await call('subagents_run', { prompt: 'Wait', label: 'waiter' });
    expect(started).toEqual({ runId: expect.any(String), state: 'running', delivery: 'follow-up' });
    const runId = String(started['runId']);
    await waitFor(() => f.session.live.get(runId)?.session.state() === 'running');
    expect(await call('subagents_inspect', { runId })).toMatchObject({ runId, state: 'running', label: 'waiter' });
    expect(await call('subagents_steer', { runId, message: 'go on' })).toEqual({ steered: true, attempt: 1 });
    expect(await steered.promise).toBe('go on');
    await waitFor(() => f.followUps.length === 1);
    expect(await call('subagents_inspect', { runId })).toMatchObject({ state: 'completed', result: { inlined: true, value: 'done:Wait' } });
    expect(await call('subagents_inspect', {})).toMatchObject({ subagents: [{ runId, state: 'completed' }] });
    expect(await call('subagents_steer', { runId, message: 'late' })).toEqual({ steered: false, reason: 'not_running', state: 'completed' });
    expect(await call('subagents_stop', { runId })).toEqual({ stopped: false, reason: 'already_terminal' });
    const foreground = await call('subagents_run', { prompt: 'Now', foreground: true });
    expect(foreground).toMatchObject({ state: 'completed', value: 'done:Now', inlined: true });
    f.script = () => {
      throw new Error('nope');
    };
    const failed = await call('subagents_run', { prompt: 'Fail', foreground: true });
    expect(failed).toMatchObject({ state: 'failed', error: { code: 'AGENT_FAILED' } });
    f.script = () => ({ result: 'second' });
    expect(await call('subagents_retry', { runId: failed['runId'], expectedState: 'failed', foreground: true })).toMatchObject({ state: 'completed', value: 'second', parentRunId: failed['runId'] });
  });

  it('fails with the error object: thrown on Pi 0.87, an isError result with structured content where Pi reads it', async () => {
    const thrown = await call('subagents_inspect', { runId: 'wf-000000000-00000000' });
    expect(thrown).toEqual({ thrown: 'RUN_NOT_FOUND: No subagent wf-000000000-00000000 in this session', error: { code: 'RUN_NOT_FOUND', message: expect.any(String), details: { runId: 'wf-000000000-00000000' } } });
    const structuredCtx = { ...fakeContext(f.cwd), executeTool: async () => ({}) } as unknown as ExtensionContext;
    const result = (await tool('subagents_retry').execute('x', { runId: 'wf-000000000-00000000' } as never, undefined, undefined, structuredCtx)) as unknown as Record<string, unknown>;
    expect(result).toMatchObject({ isError: true, structuredContent: { error: { code: 'RUN_NOT_FOUND' } } });
    const ok = (await tool('subagents_inspect').execute('y', {} as never, undefined, undefined, structuredCtx)) as unknown as Record<string, unknown>;
    expect(ok['structuredContent']).toEqual({ subagents: [] });
    session = undefined;
    expect(await call('subagents_inspect', {})).toMatchObject({ error: { code: 'INTERNAL_ERROR', message: expect.stringContaining('not started') } });
  });
});
