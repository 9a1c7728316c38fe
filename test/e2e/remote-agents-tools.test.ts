/**
 * Host tools for remote agents, through real processes (docs/remote.md,
 * "Host tools"): a remote agent's model calls the nested `agent` and
 * `get_subagent_result` tools, which its worker proxies to the host; the
 * child runs where the settings say (here: remote too), and its result
 * comes back as the tool's result. A host killed mid-call and resumed
 * answers the call without spawning the child twice; forged calls get
 * bounded, typed refusals. The same world as remote-agents.test.ts
 * (support/remote-run.ts): a real Postgres, `wfcli worker` processes, the
 * loopback model (its `spawn:` parents), the built `wfcli`, real git.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_CALLS } from '../../plugins/remote-agents/call-check.js';
import { MAX_ARGUMENT_BYTES } from '../../plugins/remote-agents/call-log.js';
import { runWfcli, startWfcli } from './support/pi-cli.js';
import { attemptRows, gate, journaled, killThenResume, queryRows, useRemoteWorld, writeScript } from './support/remote-run.js';
import { json, runIdOf } from './support/wfcli-output.js';

const world = useRemoteWorld();
/** A waiting parent holds its worker slot: a child needs a second one. */
const TWO_SLOTS = ['--concurrency', '2'];

/** The answers of an attempt's host tool calls, in the order they were made. */
async function answers(database: string, workflowId: string): Promise<{ execution: string; name: string; answer: string | null; failed: boolean | null }[]> {
  return queryRows(database, 'SELECT execution, name, answer, failed FROM wfcli_remote.attempt_calls WHERE workflow_id = $1 ORDER BY id', [workflowId]);
}

describe('host tools for remote agents', () => {
  it("a remote agent spawns a child with the agent tool: the child runs remotely, its result is the tool's result; value, journal and usage as locally", async () => {
    const { host, remote, database } = world.hostProject();
    await world.workersOn(1, database, remote, TWO_SLOTS);
    const name = writeScript(host, 'nested.js', "return await agent('spawn:count the files');\n");
    const remoteRun = await runWfcli(host, ['run', '--script', name]);
    expect(remoteRun.code, remoteRun.stderr).toBe(0);
    expect(json(remoteRun)).toBe('spawn:count the files: done with (count the files: done)');
    const runId = runIdOf(remoteRun);
    // Parent and child each ran as a remote attempt; the parent's two host tool calls were answered in the host.
    const rows = await attemptRows(database, runId);
    expect(rows.map((row) => row.status)).toEqual(['SUCCESS', 'SUCCESS']);
    const calls = (await Promise.all(rows.map(async (row) => answers(database, row.id)))).flat();
    expect(calls.map(({ name: tool, failed }) => [tool, failed])).toEqual([
      ['agent', false],
      ['get_subagent_result', false],
    ]);
    expect(JSON.parse(calls[1]?.answer ?? 'null')).toMatchObject({ label: 'kid', result: 'count the files: done' });
    const remoteJournal = await journaled(host, runId);

    rmSync(join(host.agentDir, 'pi-extensible-workflows', 'settings.json'));
    const localRun = await runWfcli(host, ['run', '--script', name]);
    expect(localRun.code, localRun.stderr).toBe(0);
    expect(json(localRun)).toEqual(json(remoteRun));
    const localJournal = await journaled(host, runIdOf(localRun));
    expect(remoteJournal.attempts).toEqual(localJournal.attempts);
    expect(remoteJournal.attempts.map((attempt) => attempt.key)).toEqual([expect.any(String), expect.stringMatching(/^child:.*\/spawn:1\/kid#0$/)]);
    // The parent's usage holds its child's, as locally: three parent turns and one child turn.
    expect(remoteJournal.usage).toEqual(localJournal.usage);
    expect(remoteJournal.usage).toMatchObject({ inputTokens: 40, outputTokens: 20 });
  });

  it('the host killed while a remote parent waits in get_subagent_result, then wfcli resume: the call is answered, the child is not spawned twice', async () => {
    const { host, remote, database } = world.hostProject();
    await world.workersOn(1, database, remote, TWO_SLOTS);
    const held = gate();
    world.model.holdNext('held child', held.open);
    const run = startWfcli(host, ['run', '--script', writeScript(host, 'held.js', "return await agent('spawn:held child');\n")]);
    // The child's request arrived: the parent has spawned it and waits for its result.
    await world.model.waitForAgentRequest('held child', 1);
    const { runId, result } = await killThenResume(host, run, held);
    expect(result.code, result.stderr).toBe(0);
    expect(json(result)).toBe('spawn:held child: done with (held child: done)');
    // One parent session and one child session in all: the resumed host re-attached to both.
    expect(world.model.agentRequests('spawn:held child')).toBe(1);
    expect(world.model.agentRequests('held child')).toBe(1);
    const rows = await attemptRows(database, runId);
    expect(rows.map((row) => row.status)).toEqual(['SUCCESS', 'SUCCESS']);
    const parent = (await Promise.all(rows.map(async (row) => ({ row, calls: await answers(database, row.id) })))).find((entry) => entry.calls.length > 0);
    expect(parent?.calls.map((call) => [call.name, call.failed])).toEqual([
      ['agent', false],
      ['get_subagent_result', false],
    ]);
    const journal = await journaled(host, runId);
    expect(journal.usage).toMatchObject({ inputTokens: 40, outputTokens: 20 });
  });

  it('wfcli stop while a remote parent waits in get_subagent_result cancels the call, the parent and its remote child', async () => {
    const { host, remote, database } = world.hostProject();
    await world.workersOn(1, database, remote, TWO_SLOTS);
    world.model.holdNext('stopped child');
    const run = startWfcli(host, ['run', '--script', writeScript(host, 'stopped.js', "return await agent('spawn:stopped child');\n")]);
    await world.model.waitForAgentRequest('stopped child', 1);
    const runId = await run.printed(/^run (wf-\S+)$/m).then((match) => match[1] ?? '');
    expect(json(await runWfcli(host, ['stop', runId, '--json']))).toEqual({ stopped: true });
    const result = await run.exited;
    expect(result.code).toBe(1);
    expect((await attemptRows(database, runId)).map((row) => row.status)).toEqual(['CANCELLED', 'CANCELLED']);
    // The worker let both sessions go: it takes the next attempt.
    const next = await runWfcli(host, ['run', '--script', writeScript(host, 'after-stop.js', "return await agent('After the stop');\n")]);
    expect(json(next)).toBe('After the stop: done');
  });

  it("forged calls get bounded, typed refusals and do not disturb the attempt: an unknown tool, wrong arguments, a huge payload, a flood", async () => {
    const { host, remote, database } = world.hostProject();
    await world.workersOn(1, database, remote);
    const held = gate();
    world.model.holdNext('Forged around', held.open);
    const run = startWfcli(host, ['run', '--script', writeScript(host, 'forged.js', "return await agent('Forged around');\n")]);
    await world.model.waitForAgentRequest('Forged around', 1);
    const [attempt] = await attemptRows(database, await run.printed(/^run (wf-\S+)$/m).then((match) => match[1] ?? ''));
    const workflowId = attempt?.id ?? '';
    const forge = (callId: string, name: string, args: string): Promise<unknown> =>
      queryRows(database, "INSERT INTO wfcli_remote.attempt_calls (workflow_id, execution, call_id, name, arguments) VALUES ($1, 'forged', $2, $3, $4)", [workflowId, callId, name, args]);
    await forge('f1', 'rm_everything', '{}');
    await forge('f2', 'agent', '{"label":5}');
    await forge('f3', 'agent', JSON.stringify({ prompt: 'x'.repeat(MAX_ARGUMENT_BYTES) }));
    await forge('f4', 'get_subagent_result', 'not json');
    const flood = 1000;
    await queryRows(
      database,
      "INSERT INTO wfcli_remote.attempt_calls (workflow_id, execution, call_id, name, arguments) SELECT $1, 'forged', 'n' || n, 'get_subagent_result', '{\"id\":\"nobody\"}' FROM generate_series(1, $2::int) AS n",
      [workflowId, flood],
    );
    await queryRows(database, "SELECT pg_notify('wfcli_remote_call', $1)", [workflowId]);
    // Every forged row gets its answer: an event in the table, read until it happened.
    let rows = await answers(database, workflowId);
    while (rows.some((row) => row.answer === null)) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      rows = await answers(database, workflowId);
    }
    expect(rows).toHaveLength(4 + flood);
    expect(rows.every((row) => row.failed === true && (row.answer ?? '').length <= 2048)).toBe(true);
    expect(rows[0]?.answer).toMatch(/^UNKNOWN_TOOL: the host tool "rm_everything" was not offered to this remote attempt \(it offers agent, get_subagent_result\)/);
    expect(rows[1]?.answer).toMatch(/^TOOL_FAILED: the arguments of agent do not match its parameters: .*prompt/);
    expect(rows[2]?.answer).toMatch(/^RPC_LIMIT_EXCEEDED: the arguments of agent are \d+ bytes, more than the 262144/);
    expect(rows[3]?.answer).toMatch(/^TOOL_FAILED: the arguments of get_subagent_result are not JSON/);
    // Calls within the bound ran (the tool's own error); the rest were refused unread, in one statement.
    expect(rows[4]?.answer).toBe('no child agent has the id "nobody"');
    const refused = rows.filter((row) => row.answer?.startsWith(`TOOL_FAILED: this remote attempt made more than ${MAX_CALLS} host tool calls`));
    expect(refused).toHaveLength(4 + flood - MAX_CALLS);
    held.release();
    const result = await run.exited;
    expect(result.code, result.stderr).toBe(0);
    expect(json(result)).toBe('Forged around: done');
    // No child was spawned by any of it.
    expect(await attemptRows(database, runIdOf(result))).toHaveLength(1);
  });
});
