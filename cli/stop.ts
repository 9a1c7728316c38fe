/**
 * `wfcli stop <run-id>`: the host's `workflow_stop` from the shell, as the
 * run's own session (see resume.ts). A run not executing anywhere (paused,
 * interrupted, budget-exhausted, or left active by a dead host) is stopped
 * here; a run executing in another live process (another `wfcli`, a Pi
 * session) is stopped by that process, which the engine asks through a stop
 * request in the run directory and waits for (kernel/engine/stop-requests.ts).
 */
import { readRunLock, type StopResult } from '../kernel/index.js';
import { EXIT_FAILED, EXIT_OK, JSON_OPTION, flag, printJson, type CliIo, type CommandSpec, type ParsedCommand } from './command.js';
import { inRunSession } from './session.js';
import { findStoredRun, type StoredRun } from './stored-run.js';

function stored(io: CliIo, runId: string): StoredRun | undefined {
  try {
    return findStoredRun(io, runId);
  } catch {
    return undefined;
  }
}

function stopStored(io: CliIo, found: StoredRun, runId: string): Promise<StopResult> {
  return inRunSession(io, found, undefined, (local) => local.host.engine.stop(local.host.cwd, runId));
}

async function run(parsed: ParsedCommand, io: CliIo): Promise<number> {
  const runId = parsed.positionals[0] ?? '';
  const found = stored(io, runId);
  const result: StopResult = found === undefined ? { stopped: false, reason: 'unknown_run' } : await stopStored(io, found, runId);
  if (flag(parsed, 'json')) printJson(io, result);
  if (result.stopped) {
    if (!flag(parsed, 'json')) io.stdout(`stopped ${runId}\n`);
    return EXIT_OK;
  }
  if (result.reason === 'already_terminal') {
    io.stderr(`already_terminal: run ${runId} is already ${found === undefined ? 'terminal' : findStoredRun(io, runId).snapshot.state}\n`);
  } else {
    const owner = found === undefined ? undefined : readRunLock(found.runDir);
    const why =
      found === undefined
        ? 'there is no such run in this project'
        : owner === undefined
          ? 'it cannot be stopped here'
          : `it is executing in process ${owner.pid}, which did not answer the stop request; interrupt it there (Ctrl-C, or kill -INT ${owner.pid} for a wfcli)`;
    io.stderr(`unknown_run: run ${runId} is not available to stop: ${why}\n`);
  }
  return EXIT_FAILED;
}

export const stopCommand: CommandSpec = {
  name: 'stop',
  usage: ['wfcli stop <run-id> [--json]'],
  help: `  --json   print the result ({"stopped": true}, or {"stopped": false, "reason": ...})

Stops a run of this project as its own session, cancelling what it still has
to do. A run executing in another live process (a wfcli run, a Pi session)
is stopped by that process: it is asked to, and this command waits for it
(up to 15 s). Prints "stopped <run-id>" (exit 0), or on stderr
"already_terminal: ..." for a completed, failed or stopped run, or
"unknown_run: ..." for a missing run or an owner that did not answer (exit 1).`,
  options: { ...JSON_OPTION },
  positionals: { min: 1, max: 1 },
  run,
};
