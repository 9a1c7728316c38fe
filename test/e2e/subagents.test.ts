/**
 * Standalone subagents in a real `pi` process (issue 16): the model starts
 * one in the background and polls `subagents_inspect` until it completes and
 * reads the value, whose end also arrives as exactly one follow-up message;
 * a foreground run returns the value inline; a subagent killed with its `pi`
 * process is listed as interrupted by the next `pi` process, and
 * `subagents_retry` completes it without a UI.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPiHome, installPackage, PI_EXECUTES_TOOLS, runPi, startPi, type PiHome } from './support/pi-cli.js';
import { jsonEvents, toolExecution, toolExecutions } from './support/pi-events.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const RUN_ID = /wf-[0-9a-z]{9}-[0-9a-f]{8}/;

function piPrompt(sessionId: string, prompt: string, extra: readonly string[] = []): string[] {
  return ['--mode', 'json', '--approve', ...extra, '--session-id', sessionId, prompt];
}

/** A tool result's JSON text (every subagent tool answers with its result object as JSON). */
function parsed(text: string | undefined): Record<string, unknown> {
  return JSON.parse(text ?? '{}') as Record<string, unknown>;
}

/** Custom messages of one type that the session displayed (follow-ups, command output). */
function customMessages(stdout: string, customType: string): { content: string; details: unknown }[] {
  return jsonEvents(stdout)
    .filter((event): event is { type: string; message: { role: string; customType?: string; content: string; details: unknown } } => event.type === 'message_end')
    .map((event) => event.message)
    .filter((message) => message.role === 'custom' && message.customType === customType);
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('standalone subagents in a pi process', () => {
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

  it('runs a subagent in the background; the model polls subagents_inspect until it completes and reads its value; one follow-up arrives', async () => {
    let release: () => void = () => undefined;
    model.holdNext('Count the files', new Promise<void>((resolve) => (release = resolve)));
    let runId = '';
    model.main(async ({ prompt, toolResults }) => {
      if (prompt !== 'Start a background subagent') return { text: 'Noted the follow-up.' };
      if (toolResults.length === 0) return { toolCalls: [{ name: 'subagents_run', arguments: { prompt: 'Count the files', label: 'counter' } }] };
      const last = parsed(toolResults.at(-1));
      if (toolResults.length === 1) {
        runId = String(last['runId']);
        // The agent is at work (its model request is held): the first inspection sees it running.
        await model.waitForAgentRequest('Count the files', 1);
        return { toolCalls: [{ name: 'subagents_inspect', arguments: { runId } }] };
      }
      if (last['state'] !== 'completed') {
        // Seen running: let the agent answer, and ask again once its result is stored.
        release();
        await until(() => existsSync(join(pi.runDir('background', runId), 'result.json')));
        return { toolCalls: [{ name: 'subagents_inspect', arguments: { runId } }] };
      }
      return { text: `The subagent said: ${JSON.stringify((last['result'] as { value?: unknown }).value)}` };
    });
    const { stdout } = await runPi(pi, piPrompt('background', 'Start a background subagent'));

    const run = toolExecution(stdout, 'subagents_run');
    expect(run.isError, run.text).toBe(false);
    expect(parsed(run.text)).toEqual({ runId, state: 'running', delivery: 'follow-up' });
    const inspections = toolExecutions(stdout).filter((execution) => execution.toolName === 'subagents_inspect');
    expect(inspections.map((execution) => parsed(execution.text)['state'])).toEqual(['running', 'completed']);
    expect(parsed(inspections[0]?.text)).toMatchObject({ runId, label: 'counter', agentState: 'running', executing: true, attempts: 1 });
    expect(parsed(inspections[1]?.text)).toMatchObject({
      runId,
      state: 'completed',
      agentState: 'completed',
      usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
      progress: { turns: 1, toolCalls: 1, toolCallsByName: { workflow_result: 1 } },
      result: { inlined: true, value: 'Count the files: done' },
    });
    const followUps = customMessages(stdout, 'subagent-run');
    expect(followUps).toHaveLength(1);
    expect(followUps[0]?.content).toContain(`Subagent "counter" (${runId}) completed.`);
    expect(followUps[0]?.details).toMatchObject({ runId, state: 'completed', value: 'Count the files: done', inlined: true });
    expect(model.agentRequests('Count the files')).toBe(1);
    // The subagent's own Pi session gets the nested agent tools, never the subagent tools.
    expect(model.agentTools('Count the files')).toEqual(expect.arrayContaining(['workflow_result', 'agent', 'get_subagent_result']));
    expect(model.agentTools('Count the files')?.filter((name) => name.startsWith('subagents_'))).toEqual([]);
    expect(pi.readJson(join(pi.runDir('background', runId), 'snapshot.json'))).toMatchObject({ state: 'completed', plugins: { subagents: { request: { label: 'counter' } } } });
  });

  it('returns a foreground subagent value inline', async () => {
    model.main(({ toolResults }) =>
      toolResults.length === 0 ? { toolCalls: [{ name: 'subagents_run', arguments: { prompt: 'Name the language', foreground: true } }] } : { text: 'Done.' },
    );
    const { stdout } = await runPi(pi, piPrompt('foreground', 'Run a subagent and wait'));
    const run = toolExecution(stdout, 'subagents_run');
    expect(run.isError, run.text).toBe(false);
    expect(parsed(run.text)).toMatchObject({ state: 'completed', value: 'Name the language: done', inlined: true, resultBytes: expect.any(Number) });
    expect(customMessages(stdout, 'subagent-run')).toEqual([]);
  });

  it('lists a subagent killed with its pi process as interrupted in the next pi process; subagents_retry completes it', async () => {
    model.holdNext('Survive the crash');
    model.main(({ prompt, toolResults }) => {
      if (prompt === 'Start and wait') {
        if (toolResults.length === 0) return { toolCalls: [{ name: 'subagents_run', arguments: { prompt: 'Survive the crash' } }] };
        // Keep the main session busy: the process dies with the subagent mid-run.
        return new Promise(() => undefined);
      }
      if (toolResults.length === 0) return { toolCalls: [{ name: 'subagents_inspect', arguments: {} }] };
      if (toolResults.length === 1) {
        const [listed] = parsed(toolResults[0])['subagents'] as { runId: string }[];
        return { toolCalls: [{ name: 'subagents_retry', arguments: { runId: listed?.runId ?? '', expectedState: 'interrupted', foreground: true } }] };
      }
      return { text: 'Retried.' };
    });
    const host = startPi(pi, piPrompt('crash', 'Start and wait'));
    await Promise.race([
      model.waitForAgentRequest('Survive the crash', 1),
      host.exited.then((result) => Promise.reject(new Error(`pi ended before the subagent asked:\n${result.stdout}\n${result.stderr}`))),
    ]);
    expect((await host.kill()).signal).toBe('SIGKILL');
    const [runId, ...others] = pi.runIds('crash');
    expect(others).toEqual([]);
    if (runId === undefined) throw new Error('the killed pi stored no run');
    expect(pi.readJson(join(pi.runDir('crash', runId), 'snapshot.json'))).toMatchObject({ state: 'running' });

    const { stdout } = await runPi(pi, piPrompt('crash', 'Check the subagents'));
    const listed = toolExecution(stdout, 'subagents_inspect');
    expect(parsed(listed.text)).toEqual({ subagents: [expect.objectContaining({ runId, state: 'interrupted', executing: false, agentState: 'running' })] });
    const retry = toolExecution(stdout, 'subagents_retry');
    expect(retry.isError, retry.text).toBe(false);
    expect(parsed(retry.text)).toMatchObject({ runId, state: 'completed', value: 'Survive the crash: done', inlined: true });
    expect(model.agentRequests('Survive the crash')).toBe(2);
    expect(pi.readJson(join(pi.runDir('crash', runId), 'snapshot.json'))).toMatchObject({ runId, state: 'completed' });
    expect(RUN_ID.test(runId)).toBe(true);
  });

  it.runIf(PI_EXECUTES_TOOLS)('code mode under codemodeTools "read-only" gets subagents_inspect objects and no subagents_run', async () => {
    const settings = join(pi.agentDir, 'pi-extensible-workflows', 'settings.json');
    mkdirSync(join(pi.agentDir, 'pi-extensible-workflows'), { recursive: true });
    writeFileSync(settings, JSON.stringify({ codemodeTools: 'read-only' }));
    try {
      const code = `const list = await tools.subagents_inspect({});
        const missing = await tools.subagents_inspect({ runId: 'wf-000000000-00000000' });
        let run;
        try { run = await tools.subagents_run({ prompt: 'never' }); } catch (error) { run = 'refused: ' + error.message; }
        return JSON.stringify({ list, missing: missing.error.code, run });`;
      model.main(({ toolResults }) => (toolResults.length === 0 ? { toolCalls: [{ name: 'codemode', arguments: { code } }] } : { text: 'Checked.' }));
      const { stdout } = await runPi(pi, piPrompt('codemode', 'Inspect from code mode', ['--tools', '+codemode']));
      const codemode = toolExecution(stdout, 'codemode');
      expect(codemode.isError, codemode.text).toBe(false);
      const reported = JSON.parse(/\{"list".*\}/.exec(codemode.text)?.[0] ?? 'null') as { list: unknown; missing: string; run: unknown };
      expect(reported.list).toEqual({ subagents: [] });
      expect(reported.missing).toBe('RUN_NOT_FOUND');
      expect(reported.run).toMatch(/^refused: tools\.subagents_run does not exist/);
    } finally {
      rmSync(settings);
    }
  });
});
