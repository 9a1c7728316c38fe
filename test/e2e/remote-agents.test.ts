/**
 * Remote agents through real processes (docs/remote.md): a real Postgres
 * (one cluster for the file), `wfcli worker` processes with their own HOMEs
 * and clones of a bare git remote, the loopback model, and the built `wfcli
 * run --script` as the host. Every wait is for an event (a line printed, a
 * model request arrived, a process exited), never for time.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../plugins/worktrees/git-fixture.js';
import { runWfcli, startWfcli } from './support/pi-cli.js';
import { TOOL_TURN, attemptRows, executionTurns, gate, journaled, killThenResume, submit, turnRecorded, useRemoteWorld, writeScript as script } from './support/remote-run.js';
import { json, runIdOf } from './support/wfcli-output.js';

const world = useRemoteWorld();
const hostProject = world.hostProject.bind(world);
const workersOn = world.workersOn.bind(world);

describe('remote agents', () => {
  it('runs the agents of a wfcli run on a worker: the value, the journal and the usage are those of a local run; changes come back', async () => {
    const { host, remote, database } = hostProject();
    // The writer writes a file in its first turn and submits in its second, wherever it runs.
    world.model.agents((request) => {
      if (request.prompt !== 'Remote writer') return undefined;
      const wrote = request.messages.some((message) => message.role === 'tool');
      return wrote ? { toolCalls: [{ name: 'workflow_result', arguments: { result: 'wrote it' } }] } : { toolCalls: [{ name: 'write', arguments: { path: 'from-agent.txt', content: 'written remotely\n' } }] };
    });
    const source = "const answers = await parallel('agents', { one: () => agent('Remote one'), two: () => agent('Remote two') });\nconst wrote = await agent('Remote writer');\nreturn { ...answers, wrote };\n";
    const [worker] = await workersOn(1, database, remote);
    const remoteRun = await runWfcli(host, ['run', '--script', script(host, 'remote.js', source)]);
    expect(remoteRun.code, remoteRun.stderr).toBe(0);
    expect(json(remoteRun)).toEqual({ one: 'Remote one: done', two: 'Remote two: done', wrote: 'wrote it' });
    // The agent's file came back to the host's working tree, uncommitted, as a local agent leaves it.
    expect(readFileSync(join(host.cwd, 'from-agent.txt'), 'utf8')).toBe('written remotely\n');
    expect(git(host.cwd, 'status', '--porcelain', '--', 'from-agent.txt')).toBe('?? from-agent.txt');
    // The worker keeps its worktrees for later attempts (worktree-pool.ts) and removes them all when it stops.
    await worker?.process.terminate();
    expect(git(worker?.clone ?? '', 'worktree', 'list').split('\n')).toHaveLength(1);
    const remoteJournal = await journaled(host, runIdOf(remoteRun));

    // The same script, locally: the global setting removed.
    rmSync(join(host.cwd, 'from-agent.txt'));
    rmSync(join(host.agentDir, 'pi-extensible-workflows', 'settings.json'));
    const localRun = await runWfcli(host, ['run', '--script', 'remote.js']);
    expect(localRun.code, localRun.stderr).toBe(0);
    expect(json(localRun)).toEqual(json(remoteRun));
    const localJournal = await journaled(host, runIdOf(localRun));
    expect(remoteJournal.attempts).toEqual(localJournal.attempts);
    expect(remoteJournal.usage).toEqual(localJournal.usage);
    expect(remoteJournal.attempts.every((entry) => entry.status === 'completed' && entry.usage.inputTokens > 0)).toBe(true);
    expect(existsSync(join(host.cwd, 'from-agent.txt'))).toBe(true);
    // Each remote attempt's transcript is a native Pi session file on the host: wfcli transcript reads it.
    expect(remoteJournal.transcripts).toHaveLength(3);
    const shown = await runWfcli(host, ['transcript', remoteJournal.transcripts[2] ?? '']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Remote writer');
  });

  it('three workers run three attempts at once', async () => {
    const { host, remote, database } = hostProject();
    await workersOn(3, database, remote);
    const gates = ['Wide one', 'Wide two', 'Wide three'].map((prompt) => ({ prompt, gate: gate() }));
    for (const { prompt, gate: held } of gates) world.model.holdNext(prompt, held.open);
    const source = "return await parallel('wide', { a: () => agent('Wide one'), b: () => agent('Wide two'), c: () => agent('Wide three') });\n";
    const run = startWfcli(host, ['run', '--script', script(host, 'wide.js', source)]);
    // Each worker runs one attempt at a time: three held requests at once are three workers.
    await Promise.all(gates.map(({ prompt }) => world.model.waitForAgentRequest(prompt, 1)));
    for (const { gate: held } of gates) held.release();
    const result = await run.exited;
    expect(result.code, result.stderr).toBe(0);
    expect(json(result)).toEqual({ a: 'Wide one: done', b: 'Wide two: done', c: 'Wide three: done' });
    const rows = await attemptRows(database, runIdOf(result));
    expect(rows.map((row) => row.status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
    expect(new Set(rows.map((row) => row.executor)).size).toBe(3);
  });

  it('a worker killed with kill -9 mid-attempt: a live worker runs the attempt again, the value is right, usage counts both executions', async () => {
    const { host, remote, database } = hostProject();
    const [first] = await workersOn(1, database, remote);
    // Turn 1 finishes (its usage reaches the stream); turn 2 of the first execution never gets an answer.
    world.model.agent('Crash task', (turn) => (turn.request === 1 || turn.request === 3 ? TOOL_TURN : turn.request === 2 ? new Promise(() => undefined) : submit('survived')));
    const run = startWfcli(host, ['run', '--script', script(host, 'crash.js', "return await agent('Crash task');\n")]);
    await world.model.waitForAgentRequest('Crash task', 2);
    const runId = await run.printed(/^run (wf-\S+)$/m).then((match) => match[1] ?? '');
    await turnRecorded(database, `${runId}/%`);
    const killed = await first?.process.kill();
    expect(killed?.signal).toBe('SIGKILL');
    const [second] = await workersOn(1, database, remote);
    const result = await run.exited;
    expect(result.code, result.stderr).toBe(0);
    expect(json(result)).toBe('survived');
    expect(world.model.agentRequests('Crash task')).toBe(4);
    const rows = await attemptRows(database, runId);
    expect(rows).toEqual([{ id: expect.stringMatching(new RegExp(`^${runId}/[0-9a-f]{24}/1$`)), status: 'SUCCESS', executor: second?.executor }]);
    const journal = await journaled(host, runId);
    // One attempt in the journal, three model turns in its usage: one of the dead execution, two of the live one.
    expect(await executionTurns(database, `${runId}/%`)).toEqual([1, 2]);
    expect(journal.attempts).toHaveLength(1);
    expect(journal.attempts[0]?.usage).toMatchObject({ inputTokens: 30, outputTokens: 15 });
  });

  it('the host killed mid-run, then wfcli resume: the in-flight attempt is re-attached by its ID and runs once', async () => {
    const { host, remote, database } = hostProject();
    await workersOn(1, database, remote);
    const held = gate();
    world.model.holdNext('Reattach task', held.open);
    const source = "const first = await agent('Reattach first');\nconst second = await agent('Reattach task');\nreturn { first, second };\n";
    const run = startWfcli(host, ['run', '--script', script(host, 'reattach.js', source)]);
    await world.model.waitForAgentRequest('Reattach task', 1);
    const { runId, result } = await killThenResume(host, run, held);
    expect(result.code, result.stderr).toBe(0);
    expect(json(result)).toEqual({ first: 'Reattach first: done', second: 'Reattach task: done' });
    expect(world.model.agentRequests('Reattach first')).toBe(1);
    expect(world.model.agentRequests('Reattach task')).toBe(1);
    const rows = await attemptRows(database, runId);
    expect(rows.map((row) => row.status)).toEqual(['SUCCESS', 'SUCCESS']);
  });

  it('the host interrupted (Ctrl-C) cancels its attempt; wfcli resume runs it again under a new ID, once', async () => {
    const { host, remote, database } = hostProject();
    await workersOn(1, database, remote);
    world.model.holdNext('Interrupted task');
    const run = startWfcli(host, ['run', '--script', script(host, 'interrupt.js', "return await agent('Interrupted task');\n")]);
    await world.model.waitForAgentRequest('Interrupted task', 1);
    const interrupted = await run.interrupt();
    const runId = runIdOf(interrupted);
    expect(interrupted.stderr).toContain(`interrupted: run ${runId} was interrupted`);
    const resumed = await runWfcli(host, ['resume', runId]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(json(resumed)).toBe('Interrupted task: done');
    expect(world.model.agentRequests('Interrupted task')).toBe(2);
    const rows = await attemptRows(database, runId);
    expect(rows.map((row) => [row.id.slice(runId.length).replace(/[0-9a-f]{24}/, '<identity>'), row.status])).toEqual([
      ['/<identity>/1', 'CANCELLED'],
      ['/<identity>/1/r1', 'SUCCESS'],
    ]);
  });

  it('wfcli stop cancels the running and the queued attempts', async () => {
    const { host, remote, database } = hostProject();
    const [worker] = await workersOn(1, database, remote);
    // One worker, one attempt at a time: whichever is dequeued first runs (held), the other waits in the queue.
    world.model.holdNext('Stop one');
    world.model.holdNext('Stop two');
    const source = "return await parallel('stop', { a: () => agent('Stop one'), b: () => agent('Stop two') });\n";
    const run = startWfcli(host, ['run', '--script', script(host, 'stop.js', source)]);
    await Promise.race([world.model.waitForAgentRequest('Stop one', 1), world.model.waitForAgentRequest('Stop two', 1)]);
    const runId = await run.printed(/^run (wf-\S+)$/m).then((match) => match[1] ?? '');
    const stopped = await runWfcli(host, ['stop', runId, '--json']);
    expect(json(stopped)).toEqual({ stopped: true });
    const result = await run.exited;
    expect(result.code).toBe(1);
    const rows = await attemptRows(database, runId);
    expect(rows.map((row) => row.status)).toEqual(['CANCELLED', 'CANCELLED']);
    expect(world.model.agentRequests('Stop one') + world.model.agentRequests('Stop two')).toBe(1);
    // The worker stopped the cancelled session and takes the next attempt.
    const next = await runWfcli(host, ['run', '--script', script(host, 'after-stop.js', "return await agent('After stop');\n")]);
    expect(json(next)).toBe('After stop: done');
    expect(worker?.process.pid).toBeDefined();
  });

  it('a worker whose clone cannot get the base commit fails the attempt with a clear error', async () => {
    const { host, remote, database } = hostProject();
    await workersOn(1, database, remote);
    writeFileSync(join(host.cwd, 'local-only.txt'), 'not pushed\n');
    git(host.cwd, 'add', 'local-only.txt');
    git(host.cwd, 'commit', '--quiet', '-m', 'local only');
    const base = git(host.cwd, 'rev-parse', 'HEAD');
    const result = await runWfcli(host, ['run', '--script', script(host, 'unpushed.js', "return await agent('Unpushed task');\n")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^AGENT_FAILED: /m);
    expect(result.stderr).toContain(`does not have the base commit ${base}`);
    expect(result.stderr).toContain('git push');
    expect(world.model.agentRequests('Unpushed task')).toBe(0);
  });

  it('Postgres restarted mid-run: the worker gives its attempt up, the host waits, a new worker finishes it with the right value', async () => {
    const { host, remote, database } = hostProject();
    const [first] = await workersOn(1, database, remote);
    world.model.holdNext('Restart task');
    const run = startWfcli(host, ['run', '--script', script(host, 'restart.js', "return await agent('Restart task');\n")]);
    await world.model.waitForAgentRequest('Restart task', 1);
    world.cluster.stop();
    world.cluster.start();
    // Its lease is gone with the server: the worker stops without recording anything.
    const gone = await first?.process.exited;
    expect(gone?.code).toBe(75);
    expect(gone?.stderr).toContain('lost its lease');
    await workersOn(1, database, remote);
    const result = await run.exited;
    expect(result.code, result.stderr).toBe(0);
    expect(json(result)).toBe('Restart task: done');
    expect(world.model.agentRequests('Restart task')).toBe(2);
  });

  it('a project settings file cannot turn remote agents on', async () => {
    const host = world.piHome();
    const file = join(host.cwd, '.pi', 'pi-extensible-workflows', 'settings.json');
    mkdirSync(join(host.cwd, '.pi', 'pi-extensible-workflows'), { recursive: true });
    writeFileSync(file, JSON.stringify({ extensionSettings: { 'remote-agents': { database: 'postgres://attacker.example/db' } } }));
    const result = await runWfcli(host, ['run', '--approve', '--script', script(host, 'project.js', "return await agent('Project task');\n")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^CONFIG_ERROR: /m);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toContain('global settings file only');
    expect(world.model.agentRequests('Project task')).toBe(0);
  });
});
