/**
 * `wfcli resume <run-id> [--budget <json>] [--expected-state <state>]`: the
 * host's `workflow_resume` from the shell. The run's own session resumes it:
 * the headless session takes the run's stored session ID (same cwd), so a run
 * of an earlier `wfcli` invocation, killed or interrupted, is owned again.
 * An active run whose host died is interrupted first (session start), then
 * resumed; completed work replays from its journal.
 *
 * A budget raise you pass here is your own decision: the proposal the budgets
 * plugin creates for it is approved at once (recorded in the run's events),
 * where a model's `workflow_resume` would wait for a human.
 */
import type { RunHandle } from '../kernel/index.js';
import { EXIT_FAILED, JSON_OPTION, TRUST_OPTIONS, flag, stringOption, trustOverride, type CliIo, type CommandSpec, type ParsedCommand } from './command.js';
import { printable } from '../lib/terminal-text.js';
import { followRun } from './follow.js';
import { inRunSession, parseJsonOption } from './session.js';
import { findStoredRun } from './stored-run.js';

async function run(parsed: ParsedCommand, io: CliIo): Promise<number> {
  const runId = parsed.positionals[0] ?? '';
  const budget = parseJsonOption('--budget', stringOption(parsed, 'budget'));
  const expectedState = stringOption(parsed, 'expected-state');
  const trust = trustOverride(parsed);
  const stored = findStoredRun(io, runId, { whole: true });
  return inRunSession(io, stored, trust, async (local) => {
    const { host } = local;
    let handle: RunHandle | undefined = await host.engine.resume(host.cwd, runId, {
      ...(expectedState === undefined ? {} : { expectedState }),
      ...(budget === undefined ? {} : { options: { budget } }),
    });
    const proposalId = handle.held?.details?.proposalId;
    if (handle.held && budget !== undefined && typeof proposalId === 'string') {
      const summary = host.engine.status(host.cwd, runId).proposals.find((proposal) => proposal.id === proposalId)?.summary ?? handle.held.message;
      io.stderr(`approved: ${printable(summary)} (proposal ${proposalId}, from your --budget)\n`);
      handle = (await host.engine.respondProposal(host.cwd, runId, proposalId, true)).resumed;
    }
    if (handle === undefined || handle.held) {
      io.stderr(`held: ${printable(handle?.held?.message ?? `run ${runId} did not resume`)}\n`);
      return EXIT_FAILED;
    }
    return followRun(local, handle, io, { json: flag(parsed, 'json'), name: stored.snapshot.workflow.name });
  });
}

export const resumeCommand: CommandSpec = {
  name: 'resume',
  usage: ['wfcli resume <run-id> [--budget <json>] [--expected-state <state>] [--approve | --no-approve] [--json]'],
  help: `  --budget <json>            a budget patch: omitted values stay, null removes a limit;
                             every exhausted hard limit must end above the usage or be removed
  --expected-state <state>   refuse (RESUME_INCOMPATIBLE) unless the run is in this state
  --approve, --no-approve    the project's trust for this segment, as for run
  --json                     print the whole outcome instead of the value

The run is found in any session of this project and resumed as its own
session (the session ID stored with the run), so runs of earlier wfcli
invocations (killed, interrupted, out of budget) continue here; a run still
executing in another live process is refused. Completed operations replay from
the journal, so finished agents do not run again. A budget raise passed here is
approved at once: you are the human the budget proposal asks. Output and exit
codes as for run.`,
  options: { budget: { type: 'string' }, 'expected-state': { type: 'string' }, ...TRUST_OPTIONS, ...JSON_OPTION },
  positionals: { min: 1, max: 1 },
  run,
};
