/**
 * An agent called without `model` runs on the root model (the launching
 * session's) and keeps it: its frozen configuration stores the concrete
 * `provider/model:thinking`, its label is that model, and a retry reruns it
 * on the same model though the root model changed (spec 1 agent options
 * "label", model aliases rule 7). Without any root model the model Pi's own
 * defaults pick is frozen. Real Pi sessions, faux provider.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fauxAssistantMessage, fauxText, fauxToolCall, type FauxResponseStep } from '@earendil-works/pi-ai';
import { createKernel } from '../../../kernel/kernel.js';
import { WorkflowEngine } from '../../../kernel/engine/engine.js';
import { createPiTransportPlugin, RESULT_TOOL_NAME } from '../../../plugins/pi-transport/index.js';
import { createHostPlugin } from '../../../plugins/host/plugin.js';
import { createFauxAgentDir, type FauxAgentDir } from '../../support/pi-agent-dir.js';

interface Snapshot {
  readonly agents: Record<string, { readonly label: string; readonly state: string }>;
  readonly agentConfigurations: Record<string, { readonly model: string; readonly label: string }>;
}

const models = [
  { id: 'faux-1', name: 'Faux One', reasoning: true, contextWindow: 128000, maxTokens: 16384 },
  { id: 'faux-2', name: 'Faux Two', reasoning: true, contextWindow: 128000, maxTokens: 16384 },
];

describe('the frozen model of an agent without a model option', () => {
  let dir: FauxAgentDir;
  beforeAll(() => {
    dir = createFauxAgentDir({ models });
  });
  afterAll(() => dir.close());

  const snapshot = (runDir: string) => JSON.parse(readFileSync(join(runDir, 'snapshot.json'), 'utf8')) as Snapshot;

  /** Answers every agent: `fails` with prose (no result) while `failing` is set, anything else with a result; records the model asked. */
  function answers(asked: string[], failing: { value: boolean }): FauxResponseStep[] {
    const step: FauxResponseStep = (context, _options, _state, model) => {
      const user = context.messages.find((message) => message.role === 'user');
      const task = typeof user?.content === 'string' ? user.content : (user?.content ?? []).map((part) => ('text' in part ? part.text : '')).join('');
      asked.push(`${task}@${model.id}`);
      if (task === 'fails' && failing.value) return fauxAssistantMessage(fauxText('no result'));
      return fauxAssistantMessage(fauxToolCall(RESULT_TOOL_NAME, { result: `${task} done` }), { stopReason: 'toolUse' });
    };
    return Array.from({ length: 16 }, () => step);
  }

  it('freezes the root model and labels the agent with it; a retry keeps it after the root model changed', async () => {
    let rootModel = `faux/faux-1:high`;
    const kernel = createKernel({ plugins: [createPiTransportPlugin({ agentDir: dir.agentDir }), createHostPlugin({ rootModel: () => rootModel })] });
    const engine = new WorkflowEngine({ kernel, sessionId: 'root', root: join(dir.root, 'runs-root'), agentDir: dir.agentDir, home: dir.root });
    try {
      const asked: string[] = [];
      const failing = { value: true };
      dir.faux.setResponses(answers(asked, failing));
      const first = await engine.launch({ name: 'frozen', cwd: dir.cwd, script: `const a = await agent('works'); const b = await agent('fails'); return [a, b];` });
      expect((await first.outcome).state).toBe('failed');
      const stored = snapshot(first.runDir);
      expect(Object.values(stored.agentConfigurations).map((config) => [config.model, config.label])).toEqual([
        ['faux/faux-1:high', 'faux/faux-1:high'],
        ['faux/faux-1:high', 'faux/faux-1:high'],
      ]);
      expect(Object.values(stored.agents).map((agent) => agent.label)).toEqual(['faux/faux-1:high', 'faux/faux-1:high']);

      rootModel = 'faux/faux-2:low';
      failing.value = false;
      const retry = await engine.retry(dir.cwd, first.runId, { expectedState: 'failed' });
      const outcome = await retry.outcome;
      expect(outcome.error).toBeUndefined();
      expect(outcome.value).toEqual(['works done', 'fails done']);
      // The prepared identity kept its model; only a new identity would follow the new root.
      expect(asked).toEqual(['works@faux-1', 'fails@faux-1', 'fails@faux-1']);
      const second = await engine.launch({ name: 'fresh', cwd: dir.cwd, script: `return await agent('new');` });
      await second.outcome;
      expect(asked.at(-1)).toBe('new@faux-2');
      expect(Object.values(snapshot(second.runDir).agentConfigurations)[0]).toMatchObject({ model: 'faux/faux-2:low', label: 'faux/faux-2:low' });
    } finally {
      await engine.close();
    }
  });

  it("without a root model freezes the model Pi's own defaults picked, before the agent runs", async () => {
    writeFileSync(join(dir.agentDir, 'settings.json'), JSON.stringify({ retry: { enabled: false }, defaultProvider: 'faux', defaultModel: 'faux-2', defaultThinkingLevel: 'low' }));
    const kernel = createKernel({ plugins: [createPiTransportPlugin({ agentDir: dir.agentDir })] });
    const engine = new WorkflowEngine({ kernel, sessionId: 'no-root', root: join(dir.root, 'runs-default'), agentDir: dir.agentDir, home: dir.root });
    try {
      const asked: string[] = [];
      dir.faux.setResponses(answers(asked, { value: false }));
      const handle = await engine.launch({ name: 'default', cwd: dir.cwd, script: `return await agent('plain');` });
      expect((await handle.outcome).value).toBe('plain done');
      expect(asked).toEqual(['plain@faux-2']);
      const stored = snapshot(handle.runDir);
      expect(Object.values(stored.agentConfigurations)).toEqual([expect.objectContaining({ model: 'faux/faux-2:low', label: 'faux/faux-2:low' })]);
      expect(Object.values(stored.agents)[0]?.label).toBe('faux/faux-2:low');
    } finally {
      await engine.close();
    }
  });
});
