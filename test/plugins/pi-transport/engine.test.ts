/**
 * End to end through the engine: `agent(...)` in a workflow script runs on
 * the Pi transport, once with the faux provider and once against an
 * OpenAI-compatible streaming server on 127.0.0.1 configured in models.json.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fauxAssistantMessage, fauxText, fauxToolCall, getCurrentTools, type FauxResponseStep } from '@earendil-works/pi-ai';
import type { RunSnapshot } from '../../../kernel/engine/snapshot.js';
import { RESULT_TOOL_NAME } from '../../../plugins/pi-transport/index.js';
import { createTempAgentDir, type TempAgentDir } from '../../support/pi-agent-dir.js';
import { createPiEngine, usePiEngine } from '../../support/pi-engine.js';
import { startOpenAiServer, type OpenAiServer, type RecordedRequest } from '../../support/pi-openai-server.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('engine + pi transport (faux provider)', () => {
  const env = usePiEngine();
  beforeEach(() => env.dir.faux.setResponses([]));

  it('completes with the value the agent submitted', async () => {
    env.dir.faux.setResponses([fauxAssistantMessage(fauxToolCall(RESULT_TOOL_NAME, { result: 'done' }), { stopReason: 'toolUse' })]);
    const outcome = await env.pi.run(`return await agent('Summarize', { model: '${env.dir.model('low')}' })`);
    expect(outcome.error).toBeUndefined();
    expect(outcome.state).toBe('completed');
    expect(outcome.value).toBe('done');
    const prompts = join(outcome.runDir, 'system-prompts.json');
    expect(existsSync(prompts)).toBe(true);
    expect(readFileSync(prompts, 'utf8')).toContain('"nativeSessionId"');
  });

  it('returns the schema-valid value with outputSchema', async () => {
    env.dir.faux.setResponses([fauxAssistantMessage(fauxToolCall(RESULT_TOOL_NAME, { n: 3 }), { stopReason: 'toolUse' })]);
    const outcome = await env.pi.run(
      `return await agent('Count', { model: '${env.dir.model()}', outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } })`,
    );
    expect(outcome.value).toEqual({ n: 3 });
  });

  it('fails with AGENT_FAILED when the agent only answers in prose', async () => {
    env.dir.faux.setResponses([fauxAssistantMessage(fauxText('done'))]);
    const outcome = await env.pi.run(`return await agent('Summarize', { model: '${env.dir.model()}' })`);
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('AGENT_FAILED');
  });

  it('retries with turn control delivered apart from the task', async () => {
    const asked: string[][] = [];
    const record: FauxResponseStep = (context) => {
      asked.push(context.messages.filter((message) => message.role === 'user').map((message) => (typeof message.content === 'string' ? message.content : message.content.map((part) => ('text' in part ? part.text : '')).join(''))));
      return asked.length === 1 ? fauxAssistantMessage(fauxText('no tool call')) : fauxAssistantMessage(fauxToolCall(RESULT_TOOL_NAME, { result: 'second' }), { stopReason: 'toolUse' });
    };
    env.dir.faux.setResponses([record, record]);
    const outcome = await env.pi.run(`return await agent('Summarize', { model: '${env.dir.model()}', retries: 1 })`);
    expect(outcome.value).toBe('second');
    expect(asked[0]).toEqual(['Summarize']);
    expect(asked[1]?.[0]).toBe('Summarize');
    expect(asked[1]?.[1]).toMatch(/^Attempt 2 of 2\./);
  });

  it('continues one session across handle sends, each send with its own result schema', async () => {
    const users: string[][] = [];
    const step =
      (args: Parameters<typeof fauxToolCall>[1]): FauxResponseStep =>
      (context) => {
        users.push(context.messages.filter((message) => message.role === 'user').map((message) => (typeof message.content === 'string' ? message.content : message.content.map((part) => ('text' in part ? part.text : '')).join(''))));
        return fauxAssistantMessage(fauxToolCall(RESULT_TOOL_NAME, args), { stopReason: 'toolUse' });
      };
    env.dir.faux.setResponses([step({ result: 'first' }), step({ n: 2 })]);
    const outcome = await env.pi.run(`
      const dev = agent.create({ name: 'dev', model: '${env.dir.model()}' });
      const a = await dev.send('one');
      const b = await dev.send('two', { outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } });
      return [a, b];
    `);
    expect(outcome.error).toBeUndefined();
    expect(outcome.value).toEqual(['first', { n: 2 }]);
    expect(users).toEqual([['one'], ['one', 'two']]);
  });

  it('bounds a nested child by its parent: the child spawned with the agent tool never gets a tool the parent lacked', async () => {
    const parentTools: string[][] = [];
    const childTools: string[][] = [];
    const call = (name: string, args: Parameters<typeof fauxToolCall>[1]) => fauxAssistantMessage(fauxToolCall(name, args), { stopReason: 'toolUse' });
    const textOf = (message: { content: readonly { type: string; text?: string }[] }) => message.content.map((part) => part.text ?? '').join('');
    const step: FauxResponseStep = (context) => {
      const user = context.messages.find((message) => message.role === 'user');
      const task = typeof user?.content === 'string' ? user.content : (user?.content ?? []).map((part) => ('text' in part ? part.text : '')).join('');
      const tools = getCurrentTools(context.messages).map((tool) => tool.name);
      if (task === 'child task') {
        childTools.push(tools);
        return call(RESULT_TOOL_NAME, { result: 'child done' });
      }
      parentTools.push(tools);
      const last = context.messages.at(-1);
      if (last?.role === 'toolResult' && last.toolName === 'agent') return call('get_subagent_result', { id: (JSON.parse(textOf(last)) as { id: string }).id });
      if (last?.role === 'toolResult' && last.toolName === 'get_subagent_result') {
        return call(RESULT_TOOL_NAME, { result: `parent got ${(JSON.parse(textOf(last)) as { result: string }).result}` });
      }
      // The child asks for bash (and, positive-only, for everything): the ceiling decides.
      return call('agent', { prompt: 'child task', label: 'kid', model: env.dir.model(), tools: ['bash', 'read'] });
    };
    env.dir.faux.setResponses(Array.from({ length: 8 }, () => step));
    const outcome = await env.pi.run(`return await agent('parent task', { model: '${env.dir.model()}', tools: ['!*', 'read', 'edit'] })`);
    expect(outcome.error).toBeUndefined();
    expect(outcome.value).toBe('parent got child done');
    expect(parentTools).toHaveLength(3);
    expect(childTools).toHaveLength(1);
    const parent = new Set(parentTools[0]);
    expect([...parent].sort()).toEqual(['agent', 'edit', 'get_subagent_result', 'read', RESULT_TOOL_NAME]);
    const child = childTools[0] ?? [];
    expect(child).toContain('read');
    expect(child).toContain('edit');
    expect(child).not.toContain('bash');
    for (const tool of child) expect(parent.has(tool)).toBe(true);
  });

  it('fails with UNKNOWN_MODEL naming a model the agent dir does not have', async () => {
    const outcome = await env.pi.run(`return await agent('Summarize', { model: 'faux/no-such-model:high' })`);
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('UNKNOWN_MODEL');
    expect(outcome.error?.message).toContain('faux/no-such-model:high');
  });
});

describe('engine + pi transport (OpenAI-compatible server on 127.0.0.1)', () => {
  let server: OpenAiServer;
  let dir: TempAgentDir;

  const userText = (request: RecordedRequest): string => {
    const content = request.body.messages?.find((message) => message.role === 'user')?.content;
    if (typeof content === 'string') return content;
    return ((content ?? []) as { type: string; text?: string }[]).map((part) => part.text ?? '').join('');
  };
  const toolNames = (request: RecordedRequest) => (request.body.tools ?? []).map((tool) => tool.function.name);

  it('runs a workflow whose agents stream tool calls over HTTP', async () => {
    server = await startOpenAiServer((request) => {
      const task = userText(request);
      return {
        toolCalls: [{ name: RESULT_TOOL_NAME, arguments: { result: `answer to ${task}` } }],
        usage: { promptTokens: 1000, completionTokens: 500 },
      };
    });
    dir = createTempAgentDir({
      providers: {
        local: {
          baseUrl: server.baseUrl,
          api: 'openai-completions',
          apiKey: 'test-key',
          models: [{ id: 'local-model', name: 'Local', reasoning: false, input: ['text'], cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 }, contextWindow: 32000, maxTokens: 4096 }],
        },
      },
    });
    const pi = createPiEngine(dir);
    cleanups.push(() => server.close(), () => dir.close(), () => pi.close());

    const outcome = await pi.run(`
      const first = await agent('alpha', { model: 'local/local-model' });
      const both = await parallel('p', { b: () => agent('beta', { model: 'local/local-model:low' }), c: () => agent('gamma', { model: 'local/local-model' }) });
      return { first, ...both };
    `);
    expect(outcome.error).toBeUndefined();
    expect(outcome.value).toEqual({ first: 'answer to alpha', b: 'answer to beta', c: 'answer to gamma' });
    expect(server.requests).toHaveLength(3);
    for (const request of server.requests) {
      expect(request.authorization).toBe('Bearer test-key');
      expect(request.body.model).toBe('local-model');
      expect(request.body.stream).toBe(true);
      expect(toolNames(request)).toContain(RESULT_TOOL_NAME);
    }
    const snapshot = JSON.parse(readFileSync(join(outcome.runDir, 'snapshot.json'), 'utf8')) as RunSnapshot;
    const agents = Object.values(snapshot.agents);
    expect(agents).toHaveLength(3);
    // Each agent: 1000 input + 500 output tokens at $1 / $2 per million.
    for (const agent of agents) {
      expect(agent.usage.inputTokens).toBe(1000);
      expect(agent.usage.outputTokens).toBe(500);
      expect(agent.usage.costUsd).toBeCloseTo(0.002, 9);
    }
    const references = Object.values(snapshot.agentSessions).flatMap((value) => (Array.isArray(value) ? value : Object.values(value as object)));
    expect(JSON.stringify(references)).toContain('"transport":"pi"');
  });
});
