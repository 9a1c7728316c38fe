/**
 * `wfcli status <run-id> [--json]`: the host's `workflow_status` from the
 * shell: the status summary of a run of this project (any session), with the
 * failure diagnostics of a failed run (what `wfcli retry` would replay and
 * run again, artifacts, named worktrees). Read-only; `RUN_NOT_FOUND` for a
 * missing, corrupt or foreign run ID. The summary is read from the run
 * store without starting Pi; only a failed run's diagnostics open a headless
 * session, so the loaded plugins add their parts (named worktrees), as they
 * do in Pi.
 *
 * `executing` says whether a live process holds the run (any process, not
 * only this one), and `delivery.state` is `none`: nothing delivers a run's end
 * to the shell.
 */
// The run store's readers only, not the kernel's index: only a failed run's diagnostics start Pi and the engine.
import { summarize } from '../kernel/engine/status.js';
import { shownSnapshot } from '../kernel/engine/stored-run-check.js';
import { readRunLock } from '../kernel/store/lock.js';
import { runTime } from '../lib/run-time.js';
import { lastStateMark } from '../lib/run-time-stored.js';
import { EXIT_OK, JSON_OPTION, flag, printJson, type CliIo, type CommandSpec, type ParsedCommand } from './command.js';
import { printable } from '../lib/terminal-text.js';
import { agentNameOf, formatStatus } from './format.js';
import { findStoredRun } from './stored-run.js';

async function run(parsed: ParsedCommand, io: CliIo): Promise<number> {
  const runId = parsed.positionals[0] ?? '';
  const { runDir, snapshot } = findStoredRun(io, runId, { whole: true });
  // As the engine's status in a session that executes nothing: an active run nobody owns reads as interrupted.
  const summary = { ...summarize(shownSnapshot(snapshot, runDir, false), false), executing: readRunLock(runDir) !== undefined };
  // Only a failed run's diagnostics need the headless session: its module loads then.
  const diagnostics = summary.state === 'failed' ? await (await import('./session.js')).withLocalSession(io, {}, async ({ host }) => host.diagnose(summary)) : undefined;
  const mark = lastStateMark(runDir);
  const now = Date.now();
  // `activeMs` keeps its meaning (as of the last segment end); `time` is wall and active time now (lib/run-time.ts).
  const status = { ...summary, time: runTime(summary, now, mark), delivery: { mode: summary.launchMode, state: 'none' }, ...(diagnostics === undefined ? {} : { diagnostics }) };
  if (flag(parsed, 'json')) printJson(io, status);
  else {
    io.stdout(formatStatus(summary, mark, now));
    if (diagnostics !== undefined) {
      const { incomplete, replayable } = diagnostics;
      io.stdout(`  retry      replays ${replayable.reduce((sum, path) => sum + path.keys.length, 0)} completed operation(s); runs again: ${printable(incomplete.map((agent) => agentNameOf(summary, agent.agentId)).join(', ')) || 'nothing pending'}\n`);
    }
  }
  return EXIT_OK;
}

export const statusCommand: CommandSpec = {
  name: 'status',
  usage: ['wfcli status <run-id> [--json]'],
  help: `  --json   print the status summary as JSON (the workflow_status result)

Any run of this project, whichever session launched it. A failed run adds
its diagnostics: what a retry would replay and run again, artifact paths and
named worktrees. RUN_NOT_FOUND (exit 1) for a missing, corrupt or foreign run.`,
  options: { ...JSON_OPTION },
  positionals: { min: 1, max: 1 },
  run,
};
