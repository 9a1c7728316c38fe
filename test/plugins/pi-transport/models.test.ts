/** Model references, the model inventory and start-up failures of the Pi transport. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fauxAssistantMessage, fauxToolCall, type FauxResponseStep } from '@earendil-works/pi-ai';
import type { ExtensionAPI } from '@earendil-works/pi-coding-agent';
import { createKernel } from '../../../kernel/kernel.js';
import { createPiTransport, createPiTransportPlugin, modelReferenceCandidates, RESULT_TOOL_NAME } from '../../../plugins/pi-transport/index.js';
import { createFauxAgentDir, createTempAgentDir, type FauxAgentDir } from '../../support/pi-agent-dir.js';
import { startOpenAiServer } from '../../support/pi-openai-server.js';
import { sessionArgs } from '../../support/pi-session-input.js';

describe('model references', () => {
  it('reads provider/model with an optional thinking suffix; IDs may hold / and :', () => {
    expect(modelReferenceCandidates('openai/gpt-5:high')).toEqual([
      { provider: 'openai', modelId: 'gpt-5:high' },
      { provider: 'openai', modelId: 'gpt-5', thinkingLevel: 'high' },
    ]);
    expect(modelReferenceCandidates('ollama/qwen2.5-coder:7b')).toEqual([{ provider: 'ollama', modelId: 'qwen2.5-coder:7b' }]);
    expect(modelReferenceCandidates('openrouter/anthropic/claude:off')[1]).toEqual({ provider: 'openrouter', modelId: 'anthropic/claude', thinkingLevel: 'off' });
    expect(modelReferenceCandidates('no-provider')).toEqual([]);
    expect(modelReferenceCandidates('/x')).toEqual([]);
  });
});

describe('pi transport start-up', () => {
  let dir: FauxAgentDir;
  beforeAll(() => {
    dir = createFauxAgentDir({ models: [{ id: 'faux-1', reasoning: true }, { id: 'plain', reasoning: false }] });
  });
  afterAll(() => dir.close());

  it('throws UNKNOWN_MODEL naming the model', async () => {
    const transport = createPiTransport({ agentDir: dir.agentDir });
    await expect(transport.createSession(...sessionArgs({ cwd: dir.cwd, model: 'faux/missing:low' }))).rejects.toMatchObject({
      code: 'UNKNOWN_MODEL',
      message: expect.stringContaining('"faux/missing:low"'),
    });
    // It names what the provider has instead.
    await expect(transport.createSession(...sessionArgs({ cwd: dir.cwd, model: 'faux/missing:low' }))).rejects.toMatchObject({
      message: expect.stringContaining('provider "faux" has: faux/faux-1, faux/plain (pi --list-models lists them all'),
    });
    await expect(transport.createSession(...sessionArgs({ cwd: dir.cwd, model: 'faux-1' }))).rejects.toMatchObject({ code: 'UNKNOWN_MODEL' });
  });

  it('applies the thinking level of the suffix, clamped to the model', async () => {
    const seen: (string | undefined)[] = [];
    const capture: FauxResponseStep = (_context, options) => {
      seen.push(options?.reasoning);
      return fauxAssistantMessage(fauxToolCall(RESULT_TOOL_NAME, { result: 'ok' }), { stopReason: 'toolUse' });
    };
    dir.faux.setResponses([capture, capture, capture]);
    const transport = createPiTransport({ agentDir: dir.agentDir });
    for (const model of ['faux/faux-1:high', 'faux/faux-1:off', 'faux/plain:high']) {
      const session = await transport.createSession(...sessionArgs({ cwd: dir.cwd, model }));
      await session.prompt('x');
      await session.dispose();
    }
    expect(seen).toEqual(['high', undefined, undefined]);
  });

  it('resolves a model of a provider that an extension registers', async () => {
    const extension = (pi: ExtensionAPI) =>
      pi.registerProvider('ext', {
        baseUrl: 'http://127.0.0.1:9/ext',
        apiKey: 'ext-key',
        api: dir.faux.api,
        models: [{ id: 'ext-1', name: 'Ext', reasoning: false, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 8000, maxTokens: 1000 }],
      });
    dir.faux.setResponses([fauxAssistantMessage(fauxToolCall(RESULT_TOOL_NAME, { result: 'from ext' }), { stopReason: 'toolUse' })]);
    const session = await createPiTransport({ agentDir: dir.agentDir }).createSession(...sessionArgs({ cwd: dir.cwd, model: 'ext/ext-1', extensionFactories: [extension] }));
    const values: unknown[] = [];
    session.subscribe((event) => void (event.type === 'result' && values.push(event.value)));
    await session.prompt('x');
    await session.dispose();
    expect(values).toEqual([{ result: 'from ext' }]);
  });

  it('adds the agent dir models to preparation.models', async () => {
    const kernel = createKernel({ plugins: [createPiTransportPlugin({ agentDir: dir.agentDir })] });
    const inventory = await kernel.hooks.preparation.models.promise({ knownModels: ['other/x'], availableModels: [] }, { cwd: dir.cwd, agentDir: '/nowhere' });
    expect(inventory.knownModels).toEqual(expect.arrayContaining(['other/x', 'faux/faux-1', 'faux/plain']));
    expect(inventory.availableModels).toEqual(expect.arrayContaining(['faux/faux-1', 'faux/plain']));
  });

  it('rejects the prompt with the provider error when the request fails', async () => {
    const server = await startOpenAiServer(() => ({ status: 400 }));
    const temp = createTempAgentDir({
      providers: { local: { baseUrl: server.baseUrl, api: 'openai-completions', apiKey: 'k', models: [{ id: 'm' }] } },
    });
    try {
      const session = await createPiTransport({ agentDir: temp.agentDir }).createSession(...sessionArgs({ cwd: temp.cwd, model: 'local/m' }));
      await expect(session.prompt('x')).rejects.toThrow(/400/);
      await session.dispose();
    } finally {
      await server.close();
      temp.close();
    }
  });
});
