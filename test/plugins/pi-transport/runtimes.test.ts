/**
 * Model runtimes across sessions: sessions without foreign extensions share
 * the agent dir's runtime, which follows edits of models.json; a session
 * whose extension registers a provider keeps it to itself.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fauxAssistantMessage, fauxToolCall } from '@earendil-works/pi-ai';
import type { ExtensionAPI } from '@earendil-works/pi-coding-agent';
import { createPiTransport, RESULT_TOOL_NAME } from '../../../plugins/pi-transport/index.js';
import { sharedModelRuntime } from '../../../plugins/pi-transport/runtimes.js';
import { createFauxAgentDir, type FauxAgentDir } from '../../support/pi-agent-dir.js';
import { sessionArgs } from '../../support/pi-session-input.js';

const submit = (result: string) => fauxAssistantMessage(fauxToolCall(RESULT_TOOL_NAME, { result }), { stopReason: 'toolUse' });

describe('model runtimes of the pi transport', () => {
  let dir: FauxAgentDir;
  beforeAll(() => {
    dir = createFauxAgentDir();
  });
  afterAll(() => dir.close());

  /** One session on `model`: its submitted result. */
  async function answer(model: string, extensionFactories?: readonly unknown[]): Promise<unknown> {
    const transport = createPiTransport({ agentDir: dir.agentDir });
    const session = await transport.createSession(...sessionArgs({ cwd: dir.cwd, model, ...(extensionFactories ? { extensionFactories } : {}) }));
    const values: unknown[] = [];
    session.subscribe((event) => void (event.type === 'result' && values.push(event.value)));
    await session.prompt('x');
    await session.dispose();
    return values[0];
  }

  it('keeps one runtime per agent dir while its files stay the same', async () => {
    // Building the first runtime may create auth.json and models-store.json: a change, so one rebuild.
    await sharedModelRuntime(dir.agentDir);
    const runtime = await sharedModelRuntime(dir.agentDir);
    expect(await sharedModelRuntime(join(dir.agentDir, '.'))).toBe(runtime);
  });

  it('sees a model added to models.json in the next session', async () => {
    dir.faux.setResponses([submit('one'), submit('two')]);
    expect(await answer(dir.model())).toEqual({ result: 'one' });
    const added = `${dir.provider}/faux-added`;
    await expect(answer(added)).rejects.toMatchObject({ code: 'UNKNOWN_MODEL' });

    const file = join(dir.agentDir, 'models.json');
    const models = JSON.parse(readFileSync(file, 'utf8')) as { providers: Record<string, { models: { id: string }[] }> };
    const provider = models.providers[dir.provider]!;
    provider.models.push({ ...provider.models[0]!, id: 'faux-added' });
    writeFileSync(file, JSON.stringify(models, null, 2));
    expect(await answer(added)).toEqual({ result: 'two' });
  });

  it("keeps a provider an extension registers to that extension's session", async () => {
    const extension = (pi: ExtensionAPI) =>
      pi.registerProvider('ext', {
        baseUrl: 'http://127.0.0.1:9/ext',
        apiKey: 'ext-key',
        api: dir.faux.api,
        models: [{ id: 'ext-1', name: 'Ext', reasoning: false, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 8000, maxTokens: 1000 }],
      });
    dir.faux.setResponses([submit('from ext'), submit('plain')]);
    expect(await answer('ext/ext-1', [extension])).toEqual({ result: 'from ext' });
    await expect(answer('ext/ext-1')).rejects.toMatchObject({ code: 'UNKNOWN_MODEL' });
    expect((await sharedModelRuntime(dir.agentDir)).getModel('ext', 'ext-1')).toBeUndefined();
    expect(await answer(dir.model())).toEqual({ result: 'plain' });
  });
});
