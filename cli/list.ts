/**
 * `wfcli list [--session <id>] [--json]`: the runs of this project, every
 * session (or one), oldest first, read from the run store without starting
 * Pi. A run whose snapshot cannot be read is named in a warning and left out.
 * `executing` says whether a live process holds the run.
 */
import { resolve } from 'node:path';
import { listRuns, parseSnapshot, readRunLock, summarize, type StatusSummary } from '../kernel/index.js';
import { EXIT_OK, JSON_OPTION, flag, printJson, stringOption, type CliIo, type CommandSpec, type ParsedCommand } from './command.js';
import { printable } from '../lib/terminal-text.js';
import { formatRunRow } from './format.js';
import { storeRoot } from './session.js';

/** Readable runs of the project with their directories; unreadable ones are reported through `warn`. */
export function projectRuns(io: CliIo, sessionId: string | undefined, warn: (message: string) => void): { summary: StatusSummary; runDir: string }[] {
  return listRuns(storeRoot(io), resolve(io.cwd), sessionId).flatMap((entry) => {
    try {
      if (entry.error !== undefined) throw new Error('snapshot.json cannot be read');
      const snapshot = parseSnapshot(entry.snapshot, `${entry.runDir}/snapshot.json`);
      return [{ summary: summarize(snapshot, readRunLock(entry.runDir) !== undefined), runDir: entry.runDir }];
    } catch (error) {
      warn(`run ${entry.runId} (session ${entry.sessionId}) is unreadable: ${(error as Error).message}`);
      return [];
    }
  });
}

async function run(parsed: ParsedCommand, io: CliIo): Promise<number> {
  const runs = projectRuns(io, stringOption(parsed, 'session'), (message) => io.stderr(`warning: ${printable(message)}\n`)).map((entry) => entry.summary);
  if (flag(parsed, 'json')) printJson(io, runs);
  else if (runs.length === 0) io.stdout('no runs in this project\n');
  else for (const summary of runs) io.stdout(`${formatRunRow(summary)}\n`);
  return EXIT_OK;
}

export const listCommand: CommandSpec = {
  name: 'list',
  summary: 'List the runs of this project (every session), oldest first.',
  usage: ['wfcli list [--session <session-id>] [--json]'],
  help: `  --session <id>   only the runs of this session
  --json           print the status summaries as a JSON array

One line per run: ID, state (* when a live process is executing it), workflow
name, session, last update and agent count. Reads the run store only.`,
  options: { session: { type: 'string' }, ...JSON_OPTION },
  run,
};
