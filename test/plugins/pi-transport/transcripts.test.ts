/**
 * Every attempt of the Pi transport writes its native Pi session file in Pi's
 * session storage for the run's cwd, under `workflows/<run-id>/`: 0600 in
 * 0700 folders, readable by Pi's own `SessionManager.open`, recorded in
 * `agentSessions` as `sessionFile`. A retry writes a new file; a handle's
 * later turn continues its session's file. Pi's session listings (what the
 * `/resume` picker and `pi --resume` show, current folder and all) do not
 * list them.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fauxAssistantMessage, fauxText, fauxToolCall } from '@earendil-works/pi-ai';
import { SessionManager } from '@earendil-works/pi-coding-agent';
import { createKernel } from '../../../kernel/kernel.js';
import { WorkflowEngine } from '../../../kernel/engine/engine.js';
import { createPiTransportPlugin, RESULT_TOOL_NAME } from '../../../plugins/pi-transport/index.js';
import { defaultPiSessionDir, piSessionDir, runTranscriptDir } from '../../../lib/transcripts/location.js';
import { createFauxAgentDir, type FauxAgentDir } from '../../support/pi-agent-dir.js';

type Reference = { attempt: number; transport: string; sessionId: string; sessionFile: string };

const submit = (result: string) => fauxAssistantMessage(fauxToolCall(RESULT_TOOL_NAME, { result }), { stopReason: 'toolUse' });

describe('transcripts of Pi transport attempts', () => {
  let dir: FauxAgentDir;
  let engine: WorkflowEngine;
  beforeAll(() => {
    dir = createFauxAgentDir();
    engine = new WorkflowEngine({ kernel: createKernel({ plugins: [createPiTransportPlugin({ agentDir: dir.agentDir })] }), sessionId: 's1', root: join(dir.root, 'runs'), agentDir: dir.agentDir, home: dir.root });
  });
  afterAll(async () => {
    await engine.close();
    dir.close();
  });

  it('writes one 0600 session file per attempt in the run folder, new on retry, continued across handle turns', async () => {
    dir.faux.setResponses([
      // The retried agent: attempt 1 answers in text only (no result), attempt 2 submits.
      fauxAssistantMessage(fauxText('TEXT-WITHOUT-RESULT'), { stopReason: 'stop' }),
      submit('second try'),
      submit('turn one'),
      submit('turn two'),
    ]);
    const model = dir.model();
    const handle = await engine.launch({
      name: 'transcripts',
      cwd: dir.cwd,
      script: `
        await agent('PROMPT-RETRIED', { label: 'retried', model: '${model}', retries: 1 });
        const dev = agent.create({ name: 'dev', model: '${model}' });
        await dev.send('PROMPT-TURN-ONE');
        await dev.send('PROMPT-TURN-TWO');
        return 'ok';
      `,
    });
    const outcome = await handle.outcome;
    expect(outcome.state).toBe('completed');
    const snapshot = JSON.parse(readFileSync(join(engine.runDirectory(dir.cwd, handle.runId)!, 'snapshot.json'), 'utf8')) as { agentSessions: Record<string, Reference[]> };
    const folder = join(defaultPiSessionDir(dir.cwd, dir.agentDir), 'workflows', handle.runId);
    expect(runTranscriptDir({ cwd: dir.cwd, agentDir: dir.agentDir, runId: handle.runId, env: {} })).toBe(folder);
    const entries = Object.entries(snapshot.agentSessions);
    const retried = entries.find(([id]) => !id.includes('@dev'))![1];
    expect(retried.map((entry) => entry.attempt)).toEqual([1, 2]);
    expect(new Set(retried.map((entry) => entry.sessionFile)).size).toBe(2);
    const turns = entries.filter(([id]) => id.includes('@dev')).map(([, references]) => references);
    expect(turns).toHaveLength(2);
    expect(turns[0]![0]!.sessionFile).toBe(turns[1]![0]!.sessionFile);

    for (const reference of entries.flatMap(([, references]) => references)) {
      expect(reference.transport).toBe('pi');
      expect(dirname(reference.sessionFile)).toBe(folder);
      expect(statSync(reference.sessionFile).mode & 0o777).toBe(0o600);
      // Pi's own reader opens it as one of its sessions.
      const opened = SessionManager.open(reference.sessionFile);
      expect(opened.getSessionId()).toBe(reference.sessionId);
      expect(opened.getHeader()?.cwd).toBe(dir.cwd);
    }
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(dirname(folder)).mode & 0o777).toBe(0o700);
    const text = (file: string) => readFileSync(file, 'utf8');
    expect(text(retried[0]!.sessionFile)).toContain('TEXT-WITHOUT-RESULT');
    expect(text(retried[1]!.sessionFile)).toContain('PROMPT-RETRIED');
    expect(text(retried[1]!.sessionFile)).toContain(RESULT_TOOL_NAME);
    const handleFile = text(turns[0]![0]!.sessionFile);
    expect(handleFile.indexOf('PROMPT-TURN-ONE')).toBeLessThan(handleFile.indexOf('PROMPT-TURN-TWO'));

    // Pi's listings: the cwd's sessions and all sessions of the agent dir (what both pickers call).
    const saved = process.env['PI_CODING_AGENT_DIR'];
    process.env['PI_CODING_AGENT_DIR'] = dir.agentDir;
    try {
      const user = SessionManager.create(dir.cwd);
      user.appendMessage({ role: 'user', content: 'the user session', timestamp: Date.now() });
      user.appendMessage({ role: 'assistant', content: [{ type: 'text', text: 'hi' }], api: 'x', provider: 'x', model: 'x', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: 'stop', timestamp: Date.now() });
      const current = await SessionManager.list(dir.cwd);
      const all = await SessionManager.listAll();
      expect(current.map((session) => session.id)).toEqual([user.getSessionId()]);
      expect(all.map((session) => session.id)).toEqual([user.getSessionId()]);
    } finally {
      if (saved === undefined) delete process.env['PI_CODING_AGENT_DIR'];
      else process.env['PI_CODING_AGENT_DIR'] = saved;
    }
  });

  it('follows Pi: the session-dir variable, then the sessionDir setting, then the agent dir', () => {
    const base = { cwd: '/work/project', agentDir: '/home/me/.pi/agent' };
    expect(piSessionDir({ ...base, env: {} })).toBe('/home/me/.pi/agent/sessions/--work-project--');
    expect(piSessionDir({ ...base, configured: 'sessions-here', env: {} })).toBe('/work/project/sessions-here');
    expect(piSessionDir({ ...base, configured: '/var/pi', env: { PI_CODING_AGENT_SESSION_DIR: '/tmp/pi-sessions' } })).toBe('/tmp/pi-sessions');
    expect(() => runTranscriptDir({ ...base, runId: '../x', env: {} })).toThrow(/not a run ID/);
  });

  it('fails the attempt with a clear error when a link stands where the run folder goes', async () => {
    const sessions = defaultPiSessionDir(dir.cwd, dir.agentDir);
    mkdirSync(sessions, { recursive: true });
    const target = join(dir.root, 'elsewhere');
    mkdirSync(target);
    const runs = join(sessions, 'workflows');
    // workflows/ becomes a link for this case only.
    renameSync(runs, `${runs}.kept`);
    symlinkSync(target, runs);
    try {
      dir.faux.setResponses([submit('x')]);
      const handle = await engine.launch({ name: 'linked', cwd: dir.cwd, script: `return await agent('PROMPT-LINKED', { model: '${dir.model()}' });` });
      const outcome = await handle.outcome;
      expect(outcome.state).toBe('failed');
      expect(JSON.stringify(outcome)).toMatch(/transcript folder .* cannot be used: .* is not a directory/);
      expect(readdirSync(target)).toEqual([]);
    } finally {
      rmSync(runs);
      renameSync(`${runs}.kept`, runs);
    }
  });

  it("checks the run's folder at every attempt: swapped for a link after the first, the second attempt fails and writes nothing there", async () => {
    const target = join(dir.root, 'swapped-target');
    mkdirSync(target);
    const runs = join(defaultPiSessionDir(dir.cwd, dir.agentDir), 'workflows');
    dir.faux.setResponses([submit('first'), submit('second')]);
    // The newest run folder is this run's: its first attempt has just written there.
    const swap = `f=$(ls -td '${runs}'/*/ | head -1); f=\${f%/}; mv "$f" "$f.moved" && ln -s '${target}' "$f"`;
    const handle = await engine.launch({
      name: 'swapped',
      cwd: dir.cwd,
      script: `const one = await agent('PROMPT-ONE', { model: '${dir.model()}' });
await shell(${JSON.stringify(swap)});
try { return [one, await agent('PROMPT-TWO', { model: '${dir.model()}' })]; } catch (e) { return [one, e.code, e.message]; }`,
    });
    const outcome = await handle.outcome;
    expect(outcome.state).toBe('completed');
    const [one, code, message] = outcome.value as [string, string, string];
    expect(one).toBe('first');
    expect(code).toBe('AGENT_FAILED');
    expect(message).toMatch(/transcript folder .* cannot be used/);
    expect(readdirSync(target)).toEqual([]);
  });

  it('a transcript that cannot be written halts the run interrupted, unjournaled; resumed, the run returns what it would have', async () => {
    const runs = join(defaultPiSessionDir(dir.cwd, dir.agentDir), 'workflows');
    let swapped = '';
    // While the model answers, the session file becomes a link to /dev/full: Pi's next append fails with ENOSPC.
    const full = () => {
      const file = readdirSync(runs, { recursive: true, encoding: 'utf8' })
        .map((name) => join(runs, name))
        .find((path) => path.endsWith('.jsonl') && readFileSync(path, 'utf8').includes('PROMPT-FULL'));
      if (file === undefined) throw new Error('no transcript of PROMPT-FULL');
      rmSync(file);
      symlinkSync('/dev/full', file);
      swapped = file;
      return submit('never delivered');
    };
    dir.faux.setResponses([full, submit('after')]);
    const script = `try { return await agent('PROMPT-FULL', { model: '${dir.model()}' }); } catch (e) { return 'CAUGHT ' + e.code; }`;
    const handle = await engine.launch({ name: 'full-transcript', cwd: dir.cwd, script });
    const outcome = await handle.outcome;
    expect(outcome.state).toBe('interrupted');
    expect(JSON.stringify(outcome)).toMatch(/STORE_WRITE_FAILED.*cannot write .*\.jsonl: no space left on the device \(ENOSPC\)/);
    const runDir = engine.runDirectory(dir.cwd, handle.runId)!;
    expect(existsSync(join(runDir, 'result.json'))).toBe(false);
    expect(readFileSync(join(runDir, 'journal.jsonl'), 'utf8')).not.toContain('"op":"agent"');

    rmSync(swapped);
    const resumed = await (await engine.resume(dir.cwd, handle.runId)).outcome;
    expect(resumed).toMatchObject({ state: 'completed', value: 'after' });
  });
});
