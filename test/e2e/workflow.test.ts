/**
 * The workflow tools in a real `pi` process: the model launches a workflow,
 * reads its status, and a run whose host was killed mid-run is resumed by a
 * new `pi` process on the same session without rerunning completed agents.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createPiHome, installPackage, runPi, startPi, type PiHome } from './support/pi-cli.js';
import { toolExecution } from './support/pi-events.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const RUN_ID = /wf-[0-9a-z]{9}-[0-9a-f]{8}/;

function runIdIn(text: string | undefined): string {
  const match = RUN_ID.exec(text ?? '');
  if (match === null) throw new Error(`no run ID in ${JSON.stringify(text)}`);
  return match[0];
}

/** Print nothing but JSONL events, trust the temp project, continue (or create) one session. */
function piPrompt(sessionId: string, prompt: string): string[] {
  return ['--mode', 'json', '--approve', '--session-id', sessionId, prompt];
}

describe('workflow tools in a pi process', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    await installPackage(pi);
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  it('launches a foreground workflow and reports its status', async () => {
    const script = "const greeting = await agent('Greet the world');\nreturn { greeting };";
    model.main(({ toolResults }) => {
      if (toolResults.length === 0) return { toolCalls: [{ name: 'workflow', arguments: { name: 'greet', script, foreground: true } }] };
      if (toolResults.length === 1) return { toolCalls: [{ name: 'workflow_status', arguments: { runId: runIdIn(toolResults[0]) } }] };
      return { text: 'The workflow is done.' };
    });
    const { stdout } = await runPi(pi, piPrompt('launch', 'Run the greet workflow'));

    const launch = toolExecution(stdout, 'workflow');
    expect(launch.isError, launch.text).toBe(false);
    expect(launch.text).toContain('Greet the world: done');
    const runId = runIdIn(launch.text);
    const status = toolExecution(stdout, 'workflow_status');
    expect(status.isError, status.text).toBe(false);
    expect(status.details).toMatchObject({ runId, state: 'completed' });
    expect(model.agentRequests('Greet the world')).toBe(1);

    const runDir = pi.runDir('launch', runId);
    expect(pi.readJson(join(runDir, 'snapshot.json'))).toMatchObject({ runId, sessionId: 'launch', state: 'completed' });
    expect(pi.readJson(join(runDir, 'result.json'))).toEqual({ greeting: 'Greet the world: done' });
  });

  it('keys named __proto__, constructor and toString stay ordinary keys through the workflow tool: args, parallel results, the result', async () => {
    // Issue 24 item 1: `parallel` used to drop a `__proto__` key and make its value the result's prototype.
    const script = `const r = await parallel('p', Object.fromEntries([['a', async () => 1], ['__proto__', async () => ({ approved: true })], ['constructor', async () => 'c']]));
return { r, keys: Object.keys(r), approved: r.approved === true, args, argKeys: Object.keys(args) };`;
    const args = JSON.parse('{"__proto__":{"polluted":true},"toString":"t"}') as unknown;
    model.main(({ toolResults }) => (toolResults.length === 0 ? { toolCalls: [{ name: 'workflow', arguments: { name: 'keys', script, args, foreground: true } }] } : { text: 'Done.' }));
    const { stdout } = await runPi(pi, piPrompt('keys', 'Run the keys workflow'));
    const launch = toolExecution(stdout, 'workflow');
    expect(launch.isError, launch.text).toBe(false);
    const runDir = pi.runDir('keys', runIdIn(launch.text));
    const expected = '{"r":{"a":1,"__proto__":{"approved":true},"constructor":"c"},"keys":["a","__proto__","constructor"],"approved":false,"args":{"__proto__":{"polluted":true},"toString":"t"},"argKeys":["__proto__","toString"]}';
    expect(JSON.stringify(pi.readJson(join(runDir, 'result.json')))).toBe(expected);
  });

  it('resumes a run whose pi process was killed, without rerunning its completed agent', async () => {
    const script = "const first = await agent('Step A');\nconst second = await agent('Step B');\nreturn { first, second };";
    model.main(({ prompt, toolResults }) => {
      if (toolResults.length > 0) return { text: 'Finished.' };
      if (prompt === 'Run the steps workflow') return { toolCalls: [{ name: 'workflow', arguments: { name: 'steps', script, foreground: true } }] };
      return { toolCalls: [{ name: 'workflow_resume', arguments: { runId: runIdIn(prompt), foreground: true } }] };
    });
    model.holdNext('Step B');
    const host = startPi(pi, piPrompt('killed', 'Run the steps workflow'));
    // Step B's request is held open: the host is mid-run until the kill.
    await Promise.race([
      model.waitForAgentRequest('Step B', 1),
      host.exited.then((result) => Promise.reject(new Error(`pi ended before Step B was asked:\n${result.stdout}\n${result.stderr}`))),
    ]);
    expect((await host.kill()).signal).toBe('SIGKILL');

    const [runId, ...others] = pi.runIds('killed');
    expect(others).toEqual([]);
    if (runId === undefined) throw new Error('the killed host stored no run');
    const runDir = pi.runDir('killed', runId);
    expect(pi.readJson(join(runDir, 'snapshot.json'))).toMatchObject({ state: 'running' });

    const { stdout } = await runPi(pi, piPrompt('killed', `Resume the workflow run ${runId}`));
    const resume = toolExecution(stdout, 'workflow_resume');
    expect(resume.isError, resume.text).toBe(false);
    expect(resume.text).toContain('Step B: done');
    expect(model.agentRequests('Step A')).toBe(1);
    expect(model.agentRequests('Step B')).toBe(2);
    expect(pi.readJson(join(runDir, 'snapshot.json'))).toMatchObject({ runId, sessionId: 'killed', state: 'completed' });
    expect(pi.readJson(join(runDir, 'result.json'))).toEqual({ first: 'Step A: done', second: 'Step B: done' });
  });
});
