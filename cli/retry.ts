/**
 * `wfcli retry <run-id> [--expected-state <state>]`: the host's
 * `workflow_retry` from the shell, as the run's own session (see resume.ts):
 * a new child run linked by `parentRunId` replays the completed operations of
 * the failed run's lineage and runs the rest.
 */
import type { RunHandle } from '../kernel/index.js';
import { JSON_OPTION, TRUST_OPTIONS, flag, stringOption, trustOverride, type CliIo, type CommandSpec, type ParsedCommand } from './command.js';
import { followRun } from './follow.js';
import { inRunSession } from './session.js';
import { findStoredRun } from './stored-run.js';

async function run(parsed: ParsedCommand, io: CliIo): Promise<number> {
  const runId = parsed.positionals[0] ?? '';
  const expectedState = stringOption(parsed, 'expected-state');
  const again = flag(parsed, 'force');
  const trust = trustOverride(parsed);
  const stored = findStoredRun(io, runId, { whole: true });
  return inRunSession(io, stored, trust, async (local) => {
    const { host } = local;
    let handle: RunHandle;
    try {
      handle = await host.engine.retry(host.cwd, runId, { ...(expectedState === undefined ? {} : { expectedState }), ...(again ? { again } : {}) });
    } catch (error) {
      // A refused retry carries the source run's diagnostics, as workflow_retry's does.
      throw host.withDiagnostics(error, runId);
    }
    return followRun(local, handle, io, { json: flag(parsed, 'json'), name: stored.snapshot.workflow.name });
  });
}

export const retryCommand: CommandSpec = {
  name: 'retry',
  usage: ['wfcli retry <run-id> [--expected-state <state>] [--force] [--approve | --no-approve] [--json]'],
  help: `  --expected-state <state>   refuse (RESUME_INCOMPATIBLE) unless the run is in this state
  --force                    retry even though a retry of this run already completed
  --approve, --no-approve    the project's trust, as for run
  --json                     print the whole outcome instead of the value

The failed run stays as it is; a child run (parentRunId) replays the completed
agent, shell, function and checkpoint operations of its lineage and runs the
incomplete ones again. The child's ID goes to stderr. budget_exhausted runs use
"wfcli resume --budget"; completed, stopped and interrupted runs are refused
with guidance (RESUME_INCOMPATIBLE), and so is a run whose retry already
completed (the error names that child; --force retries anyway, running the
incomplete operations and their unjournaled shell commands again). Output and
exit codes as for run.`,
  options: { 'expected-state': { type: 'string' }, force: { type: 'boolean' }, ...TRUST_OPTIONS, ...JSON_OPTION },
  positionals: { min: 1, max: 1 },
  run,
};
