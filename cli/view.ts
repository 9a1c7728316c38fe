/**
 * `wfcli view [run-id] [--port <n>]`: one local viewer for every stored run
 * of this project, every session's, the live ones included, that works
 * without Pi and outlives any session (issue 37 item 2). The same server,
 * page and security as the Pi session's viewer (lib/trajectory/server.ts:
 * 127.0.0.1 only, a secret token in every path, the strict CSP, Host,
 * Origin and Sec-Fetch-Site checks); what it shows and does is
 * view-source.ts and view-controls.ts. It reads the run store only: no
 * engine, no Pi session, and the server loads once the store was read.
 * Prints the URL, serves until Ctrl-C or SIGTERM, then closes and exits 0.
 */
import { WorkflowError } from '../kernel/errors.js';
import { printable } from '../lib/terminal-text.js';
import { EXIT_OK, UsageError, stringOption, type CliIo, type CommandSpec, type ParsedCommand } from './command.js';
import { findStoredRun } from './stored-run.js';

/** `--port`: a whole number from 1 to 65535; none lets the system choose a free port. */
function portOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 1 && port <= 65535)) throw new UsageError(`--port takes a port number from 1 to 65535 (got "${text}")`);
  return port;
}

function listenError(error: unknown, port: number | undefined): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (port !== undefined && (code === 'EADDRINUSE' || code === 'EACCES')) {
    return new WorkflowError('CONFIG_ERROR', `wfcli view cannot listen on 127.0.0.1:${port} (${code === 'EADDRINUSE' ? 'the port is in use' : 'not allowed'}): choose another with --port, or leave --port out for a free one`, { port });
  }
  return error;
}

/** Resolves on the first Ctrl-C or SIGTERM (a second one ends the process at once: process-io.ts). */
function interrupted(io: CliIo): Promise<void> {
  return new Promise((resolve) => {
    const stop = io.onInterrupt?.(() => {
      stop?.();
      resolve();
    });
  });
}

async function run(parsed: ParsedCommand, io: CliIo): Promise<number> {
  const runId = parsed.positionals[0];
  const port = portOption(stringOption(parsed, 'port'));
  // RUN_NOT_FOUND (or the damage found) before anything listens.
  if (runId !== undefined) findStoredRun(io, runId, { whole: true });
  const warn = (message: string): void => io.stderr(`warning: ${printable(message)}\n`);
  const [{ storedRunSource }, { TrajectoryServer }] = await Promise.all([import('./view-source.js'), import('../lib/trajectory/server.js')]);
  const source = storedRunSource(io, warn);
  // A store that cannot be read fails here, with its typed error, rather than as a blank page.
  const runs = source.list();
  const server = await TrajectoryServer.start(source, { scope: 'project', opener: 'wfcli view', ...(port === undefined ? {} : { port }) }).catch((error: unknown) => {
    throw listenError(error, port);
  });
  io.stdout(`Workflow viewer: ${server.url(runId)}\n`);
  io.stderr(`${runs.length} stored run(s) of this project, every session's. Open the link in a browser on this machine: it carries a secret token. Ctrl-C stops the viewer.\n`);
  await interrupted(io);
  await server.close();
  return EXIT_OK;
}

export const viewCommand: CommandSpec = {
  name: 'view',
  usage: ['wfcli view [run-id] [--port <n>]'],
  help: `  --port <n>   listen on 127.0.0.1:<n> (default: a free port the system chooses)

Starts one local viewer for every stored run of this project, whichever
session launched it, and prints its URL (with a run ID, that run's page).
It needs no Pi session and keeps working after the sessions end. The list
groups runs by session, newest first, and marks the ones a live process
executes. A run page shows what the Pi session's viewer shows: phases,
agents, timeline, calls, logs, transcripts, search and report download.

Runs no live process executes are read-only here (wfcli resume and wfcli
stop act on them). A run another live process executes can be stopped
from its page; pause, resume and checkpoint decisions stay with that
session's /workflow. The viewer listens on 127.0.0.1 only and every URL
carries a secret token. Serves until Ctrl-C or SIGTERM, then exits 0.`,
  options: { port: { type: 'string' } },
  positionals: { min: 0, max: 1 },
  run,
};
