/**
 * Remote agents turn by turn, through real processes (docs/remote.md): a hard
 * limit stops a remote agent between its turns as it stops a local one, and a
 * named handle's later send continues its session on a worker. The
 * same world as remote-agents.test.ts (support/remote-run.ts): a real
 * Postgres, `wfcli worker` processes, the loopback model, the built `wfcli`.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWfcli, startWfcli } from './support/pi-cli.js';
import { TOOL_TURN, attemptRows, executionTurns, journaled, submit, turnRecorded, useRemoteWorld, writeScript } from './support/remote-run.js';
import { json, runIdOf } from './support/wfcli-output.js';

const world = useRemoteWorld();

/** The budget error's line, without the run-specific agent label. */
/** The text of a chat message's content (a string or text parts). */
const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : '')).join('') : '';

/** A run's system-prompts.json records (without their times), and the body each names. */
function systemPrompts(runDir: string): { record: { agentId: string; nativeSessionId: string | null; attempt: number; turn: number }; body: string }[] {
  const lines = readFileSync(join(runDir, 'system-prompts.json'), 'utf8').trim().split('\n').slice(1);
  return lines.map((line) => {
    const { sha256, at: _at, ...record } = JSON.parse(line) as { sha256: string; at: string; agentId: string; nativeSessionId: string | null; attempt: number; turn: number };
    return { record, body: readFileSync(join(runDir, '.system-prompts', `${sha256}.txt`), 'utf8') };
  });
}

const exhausted = (stderr: string): string | undefined => /^BUDGET_EXHAUSTED: .*$/m.exec(stderr)?.[0].replace(/agent "[^"]*"/, 'agent "<label>"');

describe('remote agents turn by turn', () => {
  it('a hard token limit stops a remote agent between turns: the same turn, outcome and usage as a local run', async () => {
    const { host, remote, database } = world.hostProject();
    await world.workersOn(1, database, remote);
    // Every turn calls a tool (15 tokens a turn) and none submits; a fourth request is never answered, so only the limit ends the agent.
    for (const prompt of ['Limited remote', 'Limited local']) world.model.agent(prompt, (turn) => (turn.request >= 4 ? new Promise(() => undefined) : TOOL_TURN));
    const budget = ['--budget', JSON.stringify({ tokens: { hard: 40 } })];
    const remoteRun = await runWfcli(host, ['run', '--script', writeScript(host, 'limited-remote.js', "return await agent('Limited remote');\n"), ...budget]);
    expect(remoteRun.code, remoteRun.stderr).toBe(1);
    const runId = runIdOf(remoteRun);
    const remoteJournal = await journaled(host, runId);
    // The host cancelled the attempt's workflow; the worker stopped its session and takes the next attempt.
    expect((await attemptRows(database, runId)).map((row) => row.status)).toEqual(['CANCELLED']);
    const next = await runWfcli(host, ['run', '--script', writeScript(host, 'after-limit.js', "return await agent('After limit');\n")]);
    expect(json(next)).toBe('After limit: done');

    rmSync(join(host.agentDir, 'pi-extensible-workflows', 'settings.json'));
    const localRun = await runWfcli(host, ['run', '--script', writeScript(host, 'limited-local.js', "return await agent('Limited local');\n"), ...budget]);
    expect(localRun.code, localRun.stderr).toBe(1);
    const localJournal = await journaled(host, runIdOf(localRun));
    expect(exhausted(remoteRun.stderr)).toBe(exhausted(localRun.stderr));
    expect(exhausted(localRun.stderr)).toContain('tokens hard budget is exhausted (45 of 40)');
    expect(remoteJournal.usage).toEqual(localJournal.usage);
    expect(remoteJournal.usage).toMatchObject({ inputTokens: 30, outputTokens: 15 });
    const strip = (journal: typeof localJournal) => journal.attempts.map(({ key: _key, model: _model, ...rest }) => rest);
    expect(strip(remoteJournal)).toEqual(strip(localJournal));
    expect(world.model.agentRequests('Limited local')).toBe(3);
  });

  it("a named handle's second send continues its session on a worker: it sees the first turn and its changes; value, journal and usage as locally", async () => {
    const { host, remote, database } = world.hostProject();
    await world.workersOn(1, database, remote);
    // Turn one writes notes.txt and submits; turn two reads and extends the file, then submits what its request showed of turn one.
    world.model.agents((request) => {
      const users = request.messages.filter((message) => message.role === 'user').map((message) => textOf(message.content));
      if (users[0] !== 'Handle first') return undefined;
      const sinceUser = request.messages.slice(request.messages.findLastIndex((message) => message.role === 'user') + 1);
      const tool = sinceUser.find((message) => message.role === 'tool');
      if (users.at(-1) === 'Handle first') return tool === undefined ? { toolCalls: [{ name: 'write', arguments: { path: 'notes.txt', content: 'one\n' } }] } : submit('first done');
      if (tool === undefined) return { toolCalls: [{ name: 'bash', arguments: { command: "cat notes.txt && printf 'two\\n' >> notes.txt" } }] };
      const wrote = request.messages.some((message) => (message as { tool_calls?: { function: { name: string } }[] }).tool_calls?.some((call) => call.function.name === 'write'));
      return submit(`second saw ${users.join(' + ')}, the write: ${wrote}, the file: ${textOf(tool.content).trim()}`);
    });
    const source = "const notes = agent.create({ name: 'notes' });\nconst first = await notes.send('Handle first');\nconst second = await notes.send('Handle second');\nreturn { first, second };\n";
    const name = writeScript(host, 'handle.js', source);
    const remoteRun = await runWfcli(host, ['run', '--script', name]);
    expect(remoteRun.code, remoteRun.stderr).toBe(0);
    const expected = { first: 'first done', second: 'second saw Handle first + Handle second, the write: true, the file: one' };
    expect(json(remoteRun)).toEqual(expected);
    // Both turns' changes are in the host's working tree, uncommitted.
    expect(readFileSync(join(host.cwd, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    const runId = runIdOf(remoteRun);
    const rows = await attemptRows(database, runId);
    expect(rows.map((row) => [row.id.slice(runId.length).replace(/[0-9a-f]{24}/, '<identity>'), row.status])).toEqual([
      ['/<identity>/1', 'SUCCESS'],
      ['/<identity>/1/t2', 'SUCCESS'],
    ]);
    const remoteJournal = await journaled(host, runId);
    // The host's transcript of the handle holds both turns.
    expect(remoteJournal.transcripts.length).toBeGreaterThan(0);
    expect(readFileSync(remoteJournal.transcripts.at(-1) ?? '', 'utf8')).toContain('Handle second');
    // Each turn's effective system prompt (the worker's) is recorded under the worker's session ID, as a local turn's is.
    const remotePrompts = systemPrompts(remoteJournal.runDir);
    expect(remotePrompts.map(({ record }) => record.turn)).toEqual([1, 2]);
    expect(remotePrompts.every(({ body, record }) => body.includes('workflow_result') && record.nativeSessionId !== null && !record.nativeSessionId.startsWith(runId))).toBe(true);

    rmSync(join(host.cwd, 'notes.txt'));
    rmSync(join(host.agentDir, 'pi-extensible-workflows', 'settings.json'));
    const localRun = await runWfcli(host, ['run', '--script', name]);
    expect(localRun.code, localRun.stderr).toBe(0);
    expect(json(localRun)).toEqual(expected);
    const localJournal = await journaled(host, runIdOf(localRun));
    expect(remoteJournal.attempts).toEqual(localJournal.attempts);
    expect(remoteJournal.usage).toEqual(localJournal.usage);
    expect(remoteJournal.usage).toMatchObject({ inputTokens: 40, outputTokens: 20 });
    const withoutSession = (prompts: ReturnType<typeof systemPrompts>) => prompts.map(({ record: { nativeSessionId: _id, ...rest } }) => rest);
    expect(withoutSession(remotePrompts)).toEqual(withoutSession(systemPrompts(localJournal.runDir)));
  });

  it("a worker killed with kill -9 during a handle's later turn: a live worker resumes the session again, the value is right, usage counts both executions", async () => {
    const { host, remote, database } = world.hostProject();
    const [first] = await world.workersOn(1, database, remote);
    // Turn one submits at once; turn two calls a tool, then its first execution's next request is never answered.
    world.model.agent('Crash handle', (turn) =>
      turn.request === 1 ? submit('one') : turn.request === 2 || turn.request === 4 ? TOOL_TURN : turn.request === 3 ? new Promise(() => undefined) : submit(`two after ${turn.userTexts.length} prompts`),
    );
    const source = "const handle = agent.create({ name: 'crash' });\nconst a = await handle.send('Crash handle');\nconst b = await handle.send('Crash handle again');\nreturn { a, b };\n";
    const run = startWfcli(host, ['run', '--script', writeScript(host, 'crash-handle.js', source)]);
    await world.model.waitForAgentRequest('Crash handle', 3);
    const runId = await run.printed(/^run (wf-\S+)$/m).then((match) => match[1] ?? '');
    await turnRecorded(database, `${runId}/%/t2`);
    expect((await first?.process.kill())?.signal).toBe('SIGKILL');
    await world.workersOn(1, database, remote);
    const result = await run.exited;
    expect(result.code, result.stderr).toBe(0);
    expect(json(result)).toEqual({ a: 'one', b: 'two after 2 prompts' });
    expect(world.model.agentRequests('Crash handle')).toBe(5);
    // Two executions of the second turn, each under its own key: one turn of the dead one, two of the live one.
    expect(await executionTurns(database, `${runId}/%/t2`)).toEqual([1, 2]);
    const journal = await journaled(host, runId);
    expect(journal.attempts.map((attempt) => attempt.usage)).toEqual([
      { inputTokens: 10, outputTokens: 5, costUsd: 0 },
      { inputTokens: 30, outputTokens: 15, costUsd: 0 },
    ]);
  });
});
