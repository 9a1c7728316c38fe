/**
 * Shell process groups in a real `pi` with this package installed (issue 24):
 * a time-out ends the call whatever the command's children do, 600 MB of
 * output fails with RPC_LIMIT_EXCEEDED and pi goes on, and the end
 * of the Pi session ends the groups of the shells still running in a
 * background run, so no process outlives `pi`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readProcStat } from '../../kernel/process-identity.js';
import { createPiHome, installPackage, runPiRpcPrompt, type PiHome } from './support/pi-cli.js';
import { toolExecutions } from './support/pi-events.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const RUN_ID = /wf-[0-9a-z]{9}-[0-9a-f]{8}/;

function pidsIn(file: string): number[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((line) => /^\d+$/.test(line)).map(Number) : [];
}

/** The PIDs that still run (a zombie has ended and waits for init). */
function running(pids: readonly number[]): number[] {
  return pids.filter((pid) => {
    const stat = readProcStat(pid);
    return stat !== undefined && stat.state !== 'Z';
  });
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe.runIf(process.platform === 'linux')('shells in a pi process', () => {
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

  it('a timed-out shell leaves no process behind, 600 MB of output fails typed; the session end stops a background run\'s shell group', async () => {
    // 600 MB of output used to crash pi with a RangeError: now the call fails typed and the session goes on.
    const timedOut = `const codeOf = (call) => call.then(() => 'no error', (e) => e.code);
return { timeout: await codeOf(shell('echo $$ > timeout.pids; sleep 30 & echo $! >> timeout.pids; sleep 30; echo x', { timeoutMs: 1000 })), output: await codeOf(shell('yes | head -c 600000000')) };`;
    const background = `await shell('echo $$ > background.pids; sleep 300 & echo $! >> background.pids; sleep 300'); return 'finished';`;
    model.main(async ({ toolResults }) => {
      if (toolResults.length === 0) return { toolCalls: [{ name: 'workflow', arguments: { name: 'timeout', script: timedOut, foreground: true } }] };
      if (toolResults.length === 1) return { toolCalls: [{ name: 'workflow', arguments: { name: 'background', script: background, foreground: false } }] };
      // The session ends only once the background shell runs.
      await until(() => pidsIn(join(pi.cwd, 'background.pids')).length === 2);
      return { text: 'Done.' };
    });
    // JSON mode waits for every run (docs/tools.md): RPC keeps the last one in the background until the session ends.
    const { stdout } = await runPiRpcPrompt(pi, ['--approve', '--session-id', 'shells'], 'Run the workflows');
    const [timeout, launched] = toolExecutions(stdout).filter((execution) => execution.toolName === 'workflow');
    expect(timeout?.isError, timeout?.text).toBe(false);
    expect(timeout?.text).toMatch(/"timeout":\s*"SHELL_FAILED"/);
    expect(timeout?.text).toMatch(/"output":\s*"RPC_LIMIT_EXCEEDED"/);
    const timeoutRun = RUN_ID.exec(timeout?.text ?? '')?.[0] ?? '';
    const [call] = readFileSync(join(pi.runDir('shells', timeoutRun), 'calls.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { startedAt: string; endedAt: string });
    // Far below the shell's 30 s sleep: the time-out stopped it (with room for a busy machine).
    expect(Date.parse(call!.endedAt) - Date.parse(call!.startedAt)).toBeLessThan(10_000);
    expect(running(pidsIn(join(pi.cwd, 'timeout.pids')))).toEqual([]);

    // pi has exited: the background run was interrupted, its shell's group ended with the session.
    const backgroundPids = pidsIn(join(pi.cwd, 'background.pids'));
    expect(backgroundPids).toHaveLength(2);
    expect(running(backgroundPids)).toEqual([]);
    const backgroundRun = RUN_ID.exec(launched?.text ?? '')?.[0] ?? '';
    expect(pi.readJson(join(pi.runDir('shells', backgroundRun), 'snapshot.json'))).toMatchObject({ state: 'interrupted' });
  });
});
