/**
 * `wfcli list [--session <id>] [--json]`: the runs of this project, every
 * session (or one), oldest first, read from the run store without starting
 * Pi. A run whose snapshot cannot be read, or whose directory is damaged (a
 * link, a FIFO), is named in a warning with its typed error and left out.
 * `executing` says whether a live process holds the run; an active run whose
 * lock owner is gone is shown `interrupted`.
 */
import { resolve } from 'node:path';
// The run store's readers only, not the kernel's index: `wfcli list` loads no engine (commands.ts).
import { isWorkflowError, messageOf } from '../kernel/errors.js';
import { parseSnapshot } from '../kernel/engine/snapshot.js';
import { summarize, type StatusSummary } from '../kernel/engine/status.js';
import { checkListedRun, shownSnapshot } from '../kernel/engine/stored-run-check.js';
import { listRuns } from '../kernel/store/list.js';
import { readRunLock } from '../kernel/store/lock.js';
import { LOCK_FILE } from '../kernel/store/paths.js';
import { EXIT_OK, JSON_OPTION, flag, printJson, stringOption, type CliIo, type CommandSpec, type ParsedCommand } from './command.js';
import { printable } from '../lib/terminal-text.js';
import { formatRunTable } from './format.js';
import { storeRoot } from './stored-run.js';

function described(error: unknown): string {
  return isWorkflowError(error) ? `${error.code}: ${error.message}` : messageOf(error);
}

/**
 * Readable runs of the project with their directories; unreadable or damaged
 * ones (and linked folders the listing skipped) are reported through `warn`
 * with their typed error. An active run no live process owns reads as `interrupted`.
 */
export function projectRuns(io: CliIo, sessionId: string | undefined, warn: (message: string) => void): { summary: StatusSummary; runDir: string }[] {
  const skipped = (error: unknown): void => warn(`skipped ${described(error)}`);
  return listRuns(storeRoot(io), resolve(io.cwd), sessionId, skipped).flatMap((entry) => {
    try {
      if (entry.problem !== undefined) throw entry.problem;
      const names = checkListedRun(entry.runDir);
      const snapshot = parseSnapshot(entry.snapshot, `${entry.runDir}/snapshot.json`);
      // Most listed runs have ended and hold no lock: skip probing for it.
      const executing = names.has(LOCK_FILE) && readRunLock(entry.runDir) !== undefined;
      return [{ summary: summarize(shownSnapshot(snapshot, entry.runDir, executing), executing), runDir: entry.runDir }];
    } catch (error) {
      warn(`run ${entry.runId} (session ${entry.sessionId}) is unreadable: ${described(error)}`);
      return [];
    }
  });
}

async function run(parsed: ParsedCommand, io: CliIo): Promise<number> {
  const runs = projectRuns(io, stringOption(parsed, 'session'), (message) => io.stderr(`warning: ${printable(message)}\n`)).map((entry) => entry.summary);
  if (flag(parsed, 'json')) printJson(io, runs);
  else if (runs.length === 0) io.stdout('no runs in this project\n');
  else io.stdout(formatRunTable(runs));
  return EXIT_OK;
}

export const listCommand: CommandSpec = {
  name: 'list',
  usage: ['wfcli list [--session <session-id>] [--json]'],
  help: `  --session <id>   only the runs of this session
  --json           print the status summaries as a JSON array

A header row, then one line per run: ID, state (* when a live process is
executing it), workflow name, session, last update and agent count. Reads
the run store only.`,
  options: { session: { type: 'string' }, ...JSON_OPTION },
  run,
};
