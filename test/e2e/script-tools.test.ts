/**
 * `tools.<name>(args)` in scripts, run by a real `pi` with this package
 * installed and a permission extension loaded (fixtures/tool-guard.js). The
 * suite runs against both Pis (docs/testing-e2e.md); where they differ the
 * test branches on the feature, PI_EXECUTES_TOOLS:
 *
 * - Pi 0.99+ (`ctx.executeTool`): calls go through Pi's tool pipeline, so
 *   the guard's `tool_call` handler sees and can block them, extension tools
 *   are callable, tools with an output schema resolve to structured content
 *   (also on error); code mode sees the workflow tools by `codemodeTools`;
 *   `builtin:` selectors reach Pi's built-in extensions in agent sessions.
 * - Pi 0.87 (the fallback): Pi's built-in tool definitions run in the host,
 *   unseen by other extensions; only built-in tools are callable.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deferred } from '../support/engine-harness.js';
import { createPiHome, installPackage, PI_EXECUTES_TOOLS, runPi, runPiRpcPrompt, type PiHome } from './support/pi-cli.js';
import { toolExecution, type ToolExecution } from './support/pi-events.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const GUARD = join(import.meta.dirname, 'fixtures', 'tool-guard.js');
const RUN_ID = /wf-[0-9a-z]{9}-[0-9a-f]{8}/;

interface SeenCall {
  readonly toolName: string;
  readonly toolCallId: string;
  readonly parentToolCallId: string | null;
}

describe('tools.<name> in scripts run by a real pi', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    await installPackage(pi);
    writeFileSync(join(pi.cwd, 'note.txt'), 'hello from the project\n');
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  /** JSON events only, the temp project trusted, the guard loaded, one session per test. */
  const piArgs = (sessionId: string, prompt: string, extra: readonly string[] = []): string[] => ['--mode', 'json', '--approve', '-e', GUARD, ...extra, '--session-id', sessionId, prompt];

  /** The calls the guard's `tool_call` handler saw since the last read. */
  const guardSaw = (): SeenCall[] => {
    const file = join(pi.cwd, '.tool-calls.jsonl');
    if (!existsSync(file)) return [];
    const seen = readFileSync(file, 'utf8').trim().split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as SeenCall);
    rmSync(file);
    return seen;
  };

  /** The model launches `script` in the foreground; the launch's execution and run result. */
  async function foreground(sessionId: string, script: string, extraArgs: readonly string[] = []): Promise<{ launch: ToolExecution; result: Record<string, unknown> }> {
    model.main(({ toolResults }) => (toolResults.length === 0 ? { toolCalls: [{ name: 'workflow', arguments: { name: 'tools', script, foreground: true } }] } : { text: 'Done.' }));
    const { stdout } = await runPi(pi, piArgs(sessionId, `Run the ${sessionId} workflow`, extraArgs));
    const launch = toolExecution(stdout, 'workflow');
    return { launch, result: launch.details as Record<string, unknown> };
  }

  it('resolves bash and read, rejects failed and blocked calls with TOOL_FAILED that carries no tool output', async () => {
    guardSaw();
    const { launch, result } = await foreground(
      'calls',
      `const out = {};
      const attempt = async (key, call) => { try { out[key] = { value: await call() }; } catch (error) { out[key] = { code: error.code, message: error.message }; } };
      await attempt('bash', () => tools.bash({ command: 'echo hello' }));
      await attempt('read', () => tools.read({ path: 'note.txt' }));
      await attempt('exit3', () => tools.bash({ command: 'echo secret-output; exit 3' }));
      await attempt('timeout', () => tools.bash({ command: 'echo secret-output; sleep 30', timeout: 1 }));
      await attempt('missing', () => tools.read({ path: 'missing.txt' }));
      await attempt('blocked', () => tools.bash({ command: 'echo forbidden' }));
      await attempt('invalid', () => tools.read({}));
      return out;`,
    );
    expect(launch.isError, launch.text).toBe(false);
    const value = result['value'] as Record<string, { value?: unknown; code?: string; message?: string }>;
    const failures = Object.values(value).filter((entry) => entry.code !== undefined);
    expect(JSON.stringify(failures)).not.toContain('secret-output');
    const bashCalls = guardSaw().filter((call) => call.toolName === 'bash');
    if (PI_EXECUTES_TOOLS) {
      // bash declares an output schema: structured content, also for the nonzero exit; read's is its text.
      expect(value['bash']).toEqual({ value: { output: 'hello\n', truncated: false, exit_code: 0, wall_time_seconds: expect.any(Number) } });
      expect(value['read']).toEqual({ value: 'hello from the project\n' });
      expect(value['exit3']).toEqual({ value: expect.objectContaining({ output: 'secret-output\n', exit_code: 3 }) });
      // Failures that carry no structured content reject.
      expect(value['timeout']).toEqual({ code: 'TOOL_FAILED', message: 'tools.bash failed' });
      expect(value['missing']).toEqual({ code: 'TOOL_FAILED', message: 'tools.read failed' });
      expect(value['blocked']).toEqual({ code: 'TOOL_FAILED', message: expect.stringMatching(/^tools\.bash did not run: .*tool_call handler blocked it/) });
      expect(value['invalid']).toEqual({ code: 'TOOL_FAILED', message: expect.stringMatching(/^tools\.read did not run: its arguments are invalid/) });
      // Every bash call went through the guard's handler, as a call the workflow tool call made.
      expect(bashCalls).toHaveLength(4);
      expect(bashCalls.every((call) => call.parentToolCallId === launch.toolCallId)).toBe(true);
    } else {
      expect(value['bash']).toEqual({ value: 'hello\n' });
      expect(value['read']).toEqual({ value: 'hello from the project\n' });
      expect(value['exit3']).toEqual({ code: 'TOOL_FAILED', message: 'tools.bash failed' });
      expect(value['timeout']).toEqual({ code: 'TOOL_FAILED', message: 'tools.bash failed' });
      expect(value['missing']).toEqual({ code: 'TOOL_FAILED', message: 'tools.read failed' });
      // The fallback runs Pi's definitions itself: other extensions' handlers never see the call.
      expect(value['blocked']).toEqual({ value: 'forbidden\n' });
      expect(value['invalid']).toEqual({ code: 'TOOL_FAILED', message: expect.stringMatching(/^tools\.read arguments are invalid/) });
      expect(bashCalls).toEqual([]);
    }
  });

  it('calls a tool another extension registered (Pi 0.87: UNKNOWN_TOOL at launch)', async () => {
    const { launch, result } = await foreground('extension-tool', "return await tools.fixture_echo({ text: 'hi' });");
    if (PI_EXECUTES_TOOLS) {
      expect(launch.isError, launch.text).toBe(false);
      expect(result).toMatchObject({ state: 'completed', value: 'echo: hi' });
    } else {
      expect(launch.isError).toBe(true);
      expect(launch.text).toMatch(/^UNKNOWN_TOOL: tools\.fixture_echo: only Pi's built-in tools/);
    }
  });

  it('a background run makes new calls after its launching tool call returned', async () => {
    guardSaw();
    const release = deferred<void>();
    // The run waits on its agent until the model has the launch's result: the launching call has returned.
    model.holdNext('Wait for the launch to return', release.promise);
    const script = "await agent('Wait for the launch to return'); return await tools.bash({ command: 'echo after' });";
    let runId: string | undefined;
    model.main(async ({ toolResults }) => {
      if (runId === undefined) {
        if (toolResults.length === 0) return { toolCalls: [{ name: 'workflow', arguments: { name: 'later', script } }] };
        runId = RUN_ID.exec(toolResults[0] ?? '')?.[0];
        release.resolve();
        await until(() => runId !== undefined && existsSync(join(pi.runDir('background', runId), 'result.json')));
      }
      return { text: 'Noted.' };
    });
    // JSON mode waits for every run (docs/tools.md): RPC keeps this one in the background.
    const { stdout } = await runPiRpcPrompt(pi, piArgs('background', 'Run it in the background').slice(2, -1), 'Run it in the background');
    const launch = toolExecution(stdout, 'workflow');
    expect(launch.details).toMatchObject({ state: 'running', delivery: 'follow-up' });
    if (runId === undefined) throw new Error('no run ID in the launch result');
    const result = pi.readJson(join(pi.runDir('background', runId), 'result.json'));
    const bashCalls = guardSaw().filter((call) => call.toolName === 'bash');
    if (PI_EXECUTES_TOOLS) {
      expect(result).toEqual({ output: 'after\n', truncated: false, exit_code: 0, wall_time_seconds: expect.any(Number) });
      // Pi still runs calls on a finished call's context, through every handler, reported under that call.
      expect(bashCalls).toEqual([{ toolName: 'bash', toolCallId: `${launch.toolCallId}/1`, parentToolCallId: launch.toolCallId }]);
    } else {
      expect(result).toBe('after\n');
    }
  });

  it.runIf(PI_EXECUTES_TOOLS)('code mode calls workflow_status and is refused workflow under codemodeTools "read-only"', async () => {
    const settings = join(pi.agentDir, 'pi-extensible-workflows', 'settings.json');
    mkdirSync(join(pi.agentDir, 'pi-extensible-workflows'), { recursive: true });
    writeFileSync(settings, JSON.stringify({ codemodeTools: 'read-only' }));
    try {
      let runId = '';
      model.main(({ toolResults }) => {
        if (toolResults.length === 0) return { toolCalls: [{ name: 'workflow', arguments: { name: 'first', script: "return 'first';", foreground: true } }] };
        if (toolResults.length === 1) {
          runId = RUN_ID.exec(toolResults[0] ?? '')?.[0] ?? '';
          const code = `const status = await tools.workflow_status({ runId: ${JSON.stringify(runId)} });
            const missing = await tools.workflow_status({ runId: 'wf-000000000-00000000' });
            let launch;
            try { launch = await tools.workflow({ name: 'second', script: 'return 2;' }); } catch (error) { launch = 'refused: ' + error.message; }
            return JSON.stringify({ state: status.state, missing: missing.error.code, launch });`;
          return { toolCalls: [{ name: 'codemode', arguments: { code } }] };
        }
        return { text: 'Checked.' };
      });
      const { stdout } = await runPi(pi, piArgs('codemode', 'Check the run from code mode', ['--tools', '+codemode']));
      const codemode = toolExecution(stdout, 'codemode');
      expect(codemode.isError, codemode.text).toBe(false);
      const reported = JSON.parse(/\{"state".*\}/.exec(codemode.text)?.[0] ?? 'null') as { state: string; missing: string; launch: unknown };
      // Structured content: the status object, and the error object of a failed call.
      expect(reported.state).toBe('completed');
      expect(reported.missing).toBe('RUN_NOT_FOUND');
      // `workflow` is model-only under read-only: code mode has no such tool.
      expect(reported.launch).toMatch(/^refused: tools\.workflow does not exist/);
      // The refused launch never reached the host: the session has the model's one run.
      expect(pi.runIds('codemode')).toEqual([runId]);
    } finally {
      rmSync(settings);
    }
  });

  it('builtin:codemode reaches an agent session only where Pi has built-in extensions', async () => {
    // Agents' tools are limited to the root candidate set, the launching session's active tools: it has codemode.
    const { launch } = await foreground(
      'builtins',
      `await agent('With code mode', { extensions: ['!*', 'builtin:codemode'], tools: ['read', 'codemode'] });
      await agent('Without code mode', { extensions: ['!*'], tools: ['read', 'codemode'] });
      return 'asked';`,
      PI_EXECUTES_TOOLS ? ['--tools', '+codemode'] : [],
    );
    expect(launch.isError, launch.text).toBe(false);
    // Positive selectors alone restrict nothing, so every root tool the agent's extensions registered is offered.
    expect(model.agentTools('Without code mode')).toEqual(expect.arrayContaining(['read', 'workflow_result']));
    expect(model.agentTools('Without code mode')).not.toContain('codemode');
    if (PI_EXECUTES_TOOLS) expect(model.agentTools('With code mode')).toEqual(expect.arrayContaining(['read', 'codemode', 'workflow_result']));
    else expect(model.agentTools('With code mode')).not.toContain('codemode');
  });
});

/** Polls `done` until it holds; fails after a bound instead of hanging the `pi` under test. */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 25) {
    if (waited > 20_000) throw new Error('gave up waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
