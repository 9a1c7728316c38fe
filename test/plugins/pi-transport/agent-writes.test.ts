/**
 * What the run record holds when an agent's state events fire, through the
 * engine and the Pi transport: `queued` is persisted together with the
 * frozen configuration, `running` together with the Pi session reference,
 * and every event describes the snapshot on disk at that moment.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fauxAssistantMessage, fauxToolCall } from '@earendil-works/pi-ai';
import { createKernel } from '../../../kernel/kernel.js';
import { WorkflowEngine } from '../../../kernel/engine/engine.js';
import type { RunSnapshot } from '../../../kernel/engine/snapshot.js';
import { runDirectory } from '../../../kernel/store/index.js';
import { WORKFLOW_AGENT_STATE_CHANGED_EVENT, type WorkflowEvent } from '../../../kernel/index.js';
import { createPiTransportPlugin, RESULT_TOOL_NAME } from '../../../plugins/pi-transport/index.js';
import { createFauxAgentDir, type FauxAgentDir } from '../../support/pi-agent-dir.js';

interface Seen {
  readonly agentId: string;
  readonly state: string;
  readonly attempt: number;
  readonly at: string;
  readonly persisted: RunSnapshot;
}

describe('agent state writes on the pi transport', () => {
  let dir: FauxAgentDir;
  let engine: WorkflowEngine;
  const seen: Seen[] = [];
  beforeAll(() => {
    dir = createFauxAgentDir();
    const root = join(dir.root, 'runs');
    const record = (event: WorkflowEvent) => {
      if (event.type !== WORKFLOW_AGENT_STATE_CHANGED_EVENT) return;
      const file = join(runDirectory(root, event.cwd, event.sessionId, event.runId), 'snapshot.json');
      const persisted = JSON.parse(readFileSync(file, 'utf8')) as RunSnapshot;
      seen.push({ agentId: event.agentId, state: event.state, attempt: event.attempt, at: event.at, persisted });
    };
    const kernel = createKernel({
      plugins: [createPiTransportPlugin({ agentDir: dir.agentDir }), { name: 'recorder', apply: (k) => k.hooks.events.emit.tap('recorder', record) }],
    });
    engine = new WorkflowEngine({ kernel, sessionId: 's1', root, agentDir: dir.agentDir, home: dir.root });
  });
  afterAll(async () => {
    await engine.close();
    dir.close();
  });

  it('persists queued with the frozen configuration and running with the session reference', async () => {
    const submit = () => fauxAssistantMessage(fauxToolCall(RESULT_TOOL_NAME, { result: 'ok' }), { stopReason: 'toolUse' });
    dir.faux.setResponses([submit(), submit()]);
    const handle = await engine.launch({ name: 'writes', cwd: dir.cwd, script: `await agent('a', { model: '${dir.model('low')}' }); return await agent('b', { model: '${dir.model('low')}' });` });
    const outcome = await handle.outcome;
    expect(outcome.state).toBe('completed');

    const ids = [...new Set(seen.map((event) => event.agentId))];
    expect(ids).toHaveLength(2);
    for (const id of ids) {
      const events = seen.filter((event) => event.agentId === id);
      expect(events.map((event) => `${event.state}:${event.attempt}`)).toEqual(['queued:0', 'running:1', 'completed:1']);
      for (const event of events) {
        expect(event.persisted.updatedAt).toBe(event.at);
        expect(event.persisted.agents[id]).toMatchObject({ state: event.state, attempts: event.attempt });
      }
      const [queued, running] = events;
      expect(queued!.persisted.agentConfigurations[id]).toMatchObject({ model: dir.model('low') });
      expect(queued!.persisted.agentSessions[id]).toBeUndefined();
      expect(running!.persisted.agentSessions[id]).toEqual([{ attempt: 1, transport: 'pi', sessionId: expect.any(String), sessionFile: expect.any(String) }]);
    }
  });
});
