/**
 * The host extension inside a real in-process Pi session (SDK, faux
 * provider): the model calls the workflow tools, workflow agents answer
 * through the same faux provider, and Pi itself delivers tool results,
 * errors and follow-up messages. Nothing of Pi is doubled.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getCurrentTools, type TranscriptContext } from '@earendil-works/pi-ai';
import { SessionManager, type AgentSession, type ExtensionAPI } from '@earendil-works/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { INLINE_RESULT_BYTES } from '../../../plugins/host/delivery.js';
import { FOLLOW_UP_MESSAGE_TYPE } from '../../../plugins/host/host-session.js';
import { deferred } from '../../support/engine-harness.js';
import { callTool, lastToolResult, say, submit, toolResults, useHostedSessions } from './pi-host.js';

const suite = useHostedSessions();
const { start } = suite;

type Messages = AgentSession['messages'];


/** The run ID of the last follow-up message the model received (Pi sends custom messages as user text). */
function followUpRunId(context: TranscriptContext): string {
  const texts = context.messages.flatMap((message) => (message.role === 'user' && typeof message.content !== 'string' ? message.content : [])).map((block) => ('text' in block ? block.text : ''));
  const ids = texts.flatMap((text) => /^Workflow run (\S+) /.exec(text)?.[1] ?? []);
  return ids.at(-1) ?? 'no follow-up';
}

function followUps(messages: Messages) {
  return messages.flatMap((message) => (message.role === 'custom' && message.customType === FOLLOW_UP_MESSAGE_TYPE ? [message] : []));
}

describe('the workflow host in a Pi session', () => {
  it('launches in the background, delivers exactly one follow-up, bridges events to pi.events, and answers workflow_status', async () => {
    const completed: unknown[] = [];
    const listener = (pi: ExtensionAPI) => void pi.events.on('workflow:run-completed', (data) => void completed.push(data));
    const hosted = await start({ extensions: [listener] });
    const done = deferred();
    let status: Record<string, unknown> = {};
    suite.script.main.push(
      callTool('workflow', { name: 'double', script: 'return args.n * 2', args: { n: 21 } }),
      say('Launched.'),
      // The follow-up names the run; the model asks for its status.
      (context) => callTool('workflow_status', { runId: followUpRunId(context) })(context),
      (context) => {
        status = lastToolResult(context);
        done.resolve();
        return say('Done.')(context);
      },
    );
    await hosted.prompt('Double 21 in a workflow', done.promise);

    const [launch] = toolResults(hosted.session.messages, 'workflow');
    expect(launch?.details).toEqual({ runId: expect.any(String), state: 'running', delivery: 'follow-up' });
    const runId = (launch?.details as { runId: string }).runId;
    const delivered = followUps(hosted.session.messages);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]?.details).toMatchObject({ runId, state: 'completed', value: 42, inlined: true });
    expect(status).toMatchObject({ runId, state: 'completed', workflow: { name: 'double' }, delivery: { mode: 'background', state: 'delivered' } });
    expect(completed).toEqual([expect.objectContaining({ type: 'workflow:run-completed', runId, resultPath: expect.stringMatching(/result\.json$/) })]);
    expect(suite.script.asked.agents).toBe(0);
  });

  it('waits in the foreground: an agent answers through the provider, the value comes back inline', async () => {
    const hosted = await start();
    let result: Record<string, unknown> = {};
    suite.script.main.push(callTool('workflow', { name: 'greet', script: 'return await agent("Say hi")', foreground: true }), (context) => {
      result = lastToolResult(context);
      return say('Greeted.')(context);
    });
    suite.script.agents.push(submit('hi there'));
    await hosted.prompt('Greet');
    expect(result).toMatchObject({ state: 'completed', value: 'hi there', inlined: true, runId: expect.any(String) });
    expect(suite.script.asked.agents).toBe(1);
    expect(followUps(hosted.session.messages)).toEqual([]);
  });

  it('returns the completion descriptor for a result over 50 KiB', async () => {
    const hosted = await start();
    suite.script.main.push(callTool('workflow', { name: 'big', script: `return "x".repeat(${INLINE_RESULT_BYTES + 1})`, foreground: true }), say('Stored.'));
    await hosted.prompt('Make it big');
    const [result] = toolResults(hosted.session.messages, 'workflow');
    expect(result?.details).toEqual({ state: 'completed', runId: expect.any(String), resultPath: expect.any(String), resultBytes: expect.any(Number), inlined: false });
    expect((result?.details as { resultBytes: number }).resultBytes).toBeGreaterThan(INLINE_RESULT_BYTES);
  });

  it('fails with UNKNOWN_TOOL before any agent runs, as a Pi error result with the code in its details', async () => {
    const hosted = await start();
    suite.script.main.push(callTool('workflow', { name: 'bad', script: 'await agent("never asked"); return await tools.nope({})' }), say('It failed.'));
    await hosted.prompt('Try it');
    const [result] = toolResults(hosted.session.messages, 'workflow');
    expect(result?.isError).toBe(true);
    expect(result?.content).toEqual([{ type: 'text', text: expect.stringMatching(/^UNKNOWN_TOOL: tools\.nope: no tool "nope" is active/) }]);
    expect(result?.details).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } });
    expect(suite.script.asked.agents).toBe(0);
  });

  it('journals tools.bash and tools.read: a run interrupted by shutdown resumes in the next session without re-executing', async () => {
    rmSync(join(suite.dir.cwd, 'log.txt'), { force: true });
    const awaiting = deferred<string>();
    const listener = (pi: ExtensionAPI) =>
      void pi.events.on('workflow:checkpoint-state-changed', (data) => {
        const event = data as { runId: string; state: string };
        if (event.state === 'awaiting') awaiting.resolve(event.runId);
      });
    const sessionDir = join(suite.dir.root, 'pi-sessions');
    mkdirSync(sessionDir, { recursive: true });
    // A checkpoint needs a session with UI (without one it is refused before the run: spec 1).
    const first = await start({ sessionManager: SessionManager.create(suite.dir.cwd, sessionDir), extensions: [listener], silentUi: true });
    const source = [
      'const a = await tools.bash({ command: "echo x >> log.txt; cat log.txt" });',
      'const ok = await checkpoint({ name: "gate", prompt: "Continue?" });',
      'const b = await tools.read({ path: "log.txt" });',
      'return { a, ok, b };',
    ].join('\n');
    suite.script.main.push(callTool('workflow', { name: 'gated', script: source }), say('Started.'));
    await first.prompt('Start the gated workflow', awaiting.promise);
    const runId = await awaiting.promise;
    const sessionFile = first.session.sessionFile;
    expect(sessionFile && existsSync(sessionFile)).toBe(true);
    await first.close();

    const second = await start({ sessionManager: SessionManager.open(sessionFile!) });
    let resumed: Record<string, unknown> = {};
    suite.script.main.push(
      callTool('workflow_respond', { runId, name: 'gate', approved: true }),
      callTool('workflow_resume', { runId, expectedState: 'interrupted', foreground: true }),
      (context) => {
        resumed = lastToolResult(context);
        return say('Resumed.')(context);
      },
    );
    await second.prompt('Approve the gate and resume');
    expect(toolResults(second.session.messages, 'workflow_respond')[0]?.details).toEqual({ kind: 'checkpoint', runId, name: 'gate', decision: 'approved', delivered: false });
    expect(resumed).toMatchObject({ runId, state: 'completed', value: { a: 'x\n', ok: 'approved', b: 'x\n' } });
    expect(readFileSync(join(suite.dir.cwd, 'log.txt'), 'utf8')).toBe('x\n');
  });

  it('registers workflow_catalog at session start when settings are in effect; the model sees and calls it', async () => {
    const folder = join(suite.dir.agentDir, 'pi-extensible-workflows');
    const bare = await start();
    expect(bare.session.getAllTools().map((tool) => tool.name)).not.toContain('workflow_catalog');
    await bare.close();
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'settings.json'), JSON.stringify({ modelAliases: { cheap: 'faux/faux-1:low' } }));
    try {
      const hosted = await start();
      let offered: string[] = [];
      suite.script.main.push(
        (context) => {
          offered = getCurrentTools(context.messages).map((tool) => tool.name);
          return callTool('workflow_catalog', {})(context);
        },
        say('Listed.'),
      );
      await hosted.prompt('What can workflows use?');
      expect(offered).toContain('workflow_catalog');
      expect(toolResults(hosted.session.messages, 'workflow_catalog')[0]?.details).toEqual({
        functions: [],
        modelAliases: [{ name: 'cheap', kind: 'static', provenance: { settingsPath: join(folder, 'settings.json') } }],
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('runs no workflow in a project Pi does not trust, and reads project settings in a trusted one', async () => {
    const folder = join(suite.dir.cwd, '.pi', 'pi-extensible-workflows');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'settings.json'), JSON.stringify({ concurrency: 99 }));
    try {
      const untrusted = await start({ trusted: false });
      suite.script.main.push(callTool('workflow', { name: 'plain', script: 'return 1', foreground: true }), say('ok'));
      await untrusted.prompt('Run');
      const [untrustedLaunch] = toolResults(untrusted.session.messages, 'workflow');
      expect(untrustedLaunch?.isError).toBe(true);
      expect(untrustedLaunch?.details).toMatchObject({ error: { code: 'CONFIG_ERROR', message: expect.stringContaining('/trust') } });
      await untrusted.close();

      const trusted = await start({ trusted: true });
      suite.script.main.push(callTool('workflow', { name: 'plain', script: 'return 1', foreground: true }), say('refused'));
      await trusted.prompt('Run');
      const [refused] = toolResults(trusted.session.messages, 'workflow');
      expect(refused?.isError).toBe(true);
      expect(refused?.details).toMatchObject({ error: { code: 'CONFIG_ERROR', message: expect.stringContaining(join(folder, 'settings.json')) } });
    } finally {
      rmSync(join(suite.dir.cwd, '.pi'), { recursive: true, force: true });
    }
  });
});
