/**
 * A nested child's host fault (its transcript or a store write failing) ends
 * its parent's attempt with that fault, whatever the parent's model makes of
 * the failed `get_subagent_result`: the run halts `interrupted`, unjournaled,
 * and a resume reruns parent and child to the value (issue 35 item 1). Unit
 * level over the echo transport; the Pi transport's transcript faults have
 * their own tests (pi-transport/transcripts.test.ts, adversarial/session-full).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createKernel } from '../../kernel/kernel.js';
import { WorkflowEngine } from '../../kernel/engine/engine.js';
import { writeFailed } from '../../kernel/store/index.js';
import type { JsonValue } from '../../kernel/json.js';
import { echoTransportPlugin, type EchoSession } from '../support/echo-transport.js';

const dir = mkdtempSync(join(tmpdir(), 'wf-nested-fault-'));
let full = true;
const tool = (session: EchoSession, name: string) => session.tools.find((candidate) => candidate.name === name)!;

async function answer(prompt: string, session: EchoSession): Promise<JsonValue> {
  if (prompt !== 'parent') {
    if (full) throw writeFailed('/sessions/workflows/child.jsonl', Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }));
    return { result: 'child done' };
  }
  const child = (await tool(session, 'agent').execute({ prompt: 'child', label: 'kid' }, session.signal)) as { id: string };
  try {
    const got = (await tool(session, 'get_subagent_result').execute({ id: child.id }, session.signal)) as { result: string };
    return { result: `parent of (${got.result})` };
  } catch {
    // A model may well shrug a failed child off: the fault must not be lost with it.
    return { result: 'parent without its child' };
  }
}

const engine = new WorkflowEngine({ kernel: createKernel({ plugins: [echoTransportPlugin({ answer })] }), sessionId: 'fault', root: join(dir, 'root'), agentDir: join(dir, 'agent'), home: dir });
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a nested child's host fault", () => {
  it('halts the run interrupted instead of reaching the parent; resumed, parent and child complete', async () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const run = await engine.launch({ name: 'nested-fault', cwd, script: `try { return await agent('parent', { label: 'parent' }); } catch (e) { return 'CAUGHT ' + e.code; }` });
    const outcome = await run.outcome;
    expect(outcome.state).toBe('interrupted');
    expect(outcome.error?.code).toBe('STORE_WRITE_FAILED');
    expect(readFileSync(join(engine.runDirectory(cwd, run.runId)!, 'journal.jsonl'), 'utf8')).not.toContain('"op":"agent"');

    full = false;
    const resumed = await (await engine.resume(cwd, run.runId)).outcome;
    expect(resumed).toMatchObject({ state: 'completed', value: 'parent of (child done)' });
  });
});
