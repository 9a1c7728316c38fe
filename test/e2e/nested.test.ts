/**
 * Nested agents in a real `pi` process: a workflow agent spawns a child with
 * the `agent` tool and waits in `get_subagent_result`. The waiting parent
 * gives its slot to the child, so a run with `concurrency: 1` completes, and
 * 16 parents that fill the session-wide ceiling each get their child through.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runPi } from './support/pi-cli.js';
import { toolExecution } from './support/pi-events.js';
import { useScriptedPi } from './support/scripted-pi.js';

interface StoredAgent {
  readonly id: string;
  readonly state: string;
  readonly parentId?: string;
}

function piPrompt(sessionId: string, prompt: string): string[] {
  return ['--mode', 'json', '--approve', '--session-id', sessionId, prompt];
}

describe('nested agents in a pi process', () => {
  const env = useScriptedPi();

  /** The main session launches `script` in the foreground, then ends its turn. */
  async function launch(sessionId: string, script: string, concurrency: number) {
    env.model.main(({ toolResults }) =>
      toolResults.length === 0 ? { toolCalls: [{ name: 'workflow', arguments: { name: 'nested', script, foreground: true, concurrency } }] } : { text: 'Done.' },
    );
    const { stdout } = await runPi(env.pi, piPrompt(sessionId, 'Run the nested workflow'));
    const launched = toolExecution(stdout, 'workflow');
    expect(launched.isError, launched.text).toBe(false);
    const [runId] = env.pi.runIds(sessionId);
    if (runId === undefined) throw new Error('no run stored');
    const snapshot = env.pi.readJson(join(env.pi.runDir(sessionId, runId), 'snapshot.json')) as { state: string; agents: Record<string, StoredAgent> };
    return { text: launched.text, snapshot, result: env.pi.readJson(join(env.pi.runDir(sessionId, runId), 'result.json')) };
  }

  it('completes a parent and its child with concurrency 1', async () => {
    const { text, snapshot, result } = await launch('one-slot', "return await agent('spawn:inspect the repo');", 1);
    expect(text).toContain('spawn:inspect the repo: done with (inspect the repo: done)');
    expect(result).toBe('spawn:inspect the repo: done with (inspect the repo: done)');
    expect(snapshot.state).toBe('completed');
    const agents = Object.values(snapshot.agents);
    const parent = agents.find((agent) => agent.parentId === undefined);
    expect(agents.map((agent) => agent.state)).toEqual(['completed', 'completed']);
    expect(agents.filter((agent) => agent.parentId === parent?.id)).toHaveLength(1);
  });

  it('completes 16 parents that fill the session ceiling, each with a child', async () => {
    env.model.gatherParents(16);
    const tasks = Array.from({ length: 16 }, (_, index) => `p${index}: () => agent('spawn:task ${index}')`).join(', ');
    const { snapshot, result } = await launch('fan-out', `return await parallel('fan', { ${tasks} });`, 16);
    expect(snapshot.state).toBe('completed');
    expect(Object.values(result as Record<string, string>).sort()).toEqual(
      Array.from({ length: 16 }, (_, index) => `spawn:task ${index}: done with (task ${index}: done)`).sort(),
    );
    const agents = Object.values(snapshot.agents);
    expect(agents).toHaveLength(32);
    expect(agents.every((agent) => agent.state === 'completed')).toBe(true);
    expect(agents.filter((agent) => agent.parentId !== undefined)).toHaveLength(16);
  });
});
