/**
 * `wfcli status <run-id> [--json]`: the host's `workflow_status` from the
 * shell: the status summary of a run of this project (any session), with the
 * failure diagnostics of a failed run (what `wfcli retry` would replay and
 * run again, artifacts, named worktrees). Read-only; `RUN_NOT_FOUND` for a
 * missing, corrupt or foreign run ID. In a headless session so the loaded
 * plugins add their parts of the diagnostics, as they do in Pi.
 *
 * `executing` says whether a live process holds the run (any process, not
 * only this one), and `delivery.state` is `none`: nothing delivers a run's end
 * to the shell.
 */
import { readRunLock } from '../kernel/index.js';
import { EXIT_OK, JSON_OPTION, flag, printJson, type CliIo, type CommandSpec, type ParsedCommand } from './command.js';
import { printable } from '../lib/terminal-text.js';
import { formatStatus } from './format.js';
import { findStoredRun, withLocalSession } from './session.js';

async function run(parsed: ParsedCommand, io: CliIo): Promise<number> {
  const runId = parsed.positionals[0] ?? '';
  const { runDir } = findStoredRun(io, runId, { whole: true });
  return withLocalSession(io, {}, async ({ host }) => {
    const summary = { ...host.engine.status(host.cwd, runId), executing: readRunLock(runDir) !== undefined };
    const status = { ...summary, delivery: { mode: summary.launchMode, state: 'none' }, ...(summary.state === 'failed' ? { diagnostics: host.diagnose(summary) } : {}) };
    if (flag(parsed, 'json')) printJson(io, status);
    else {
      io.stdout(formatStatus(summary));
      if (status.diagnostics !== undefined) {
        const { incomplete, replayable } = status.diagnostics;
        io.stdout(`  retry      replays ${replayable.reduce((sum, path) => sum + path.keys.length, 0)} completed operation(s); runs again: ${printable(incomplete.map((agent) => agent.label).join(', ')) || 'nothing pending'}\n`);
      }
    }
    return EXIT_OK;
  });
}

export const statusCommand: CommandSpec = {
  name: 'status',
  summary: 'Show the state, failure, phase, budget and agents of a run.',
  usage: ['wfcli status <run-id> [--json]'],
  help: `  --json   print the status summary as JSON (the workflow_status result)

Any run of this project, whichever session launched it. A failed run adds
its diagnostics: what a retry would replay and run again, artifact paths and
named worktrees. RUN_NOT_FOUND (exit 1) for a missing, corrupt or foreign run.`,
  options: { ...JSON_OPTION },
  positionals: { min: 1, max: 1 },
  run,
};
