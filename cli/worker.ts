/**
 * `wfcli worker --database <url> [--queue <name>] [--concurrency <n>]
 * [--repo <folder>] [--remote <name>]`: runs remote agent attempts
 * (docs/remote.md). The worker is the remote agents plugin's runtime with
 * the Pi transport handed in; wfcli reaches both through the package's own
 * exports (`pi-extensible-workflows/plugins/...`), loaded at run time, so
 * wfcli itself imports no feature plugin. Pi's SDK is the user's Pi, as for
 * `wfcli run`; the worker's agents use this machine's Pi auth and models.
 */
import { realpathSync } from 'node:fs';
import { WorkflowError, messageOf } from '../kernel/errors.js';
import { UsageError, stringOption, type CliIo, type CommandSpec, type ParsedCommand } from './command.js';
import { useBundledPi } from './pi-bundle.js';

/** What the worker command needs of the two plugin libraries (typed here: wfcli imports no plugin's types either). */
interface RemoteAgentsLibrary {
  runWorker(options: {
    database: string;
    queue: string;
    concurrency: number;
    repo: string;
    remote: string;
    transport: unknown;
    continueTransport: (sessionFile: string) => unknown;
    log: (line: string) => void;
    abandon: (reason: string) => never;
    signal: AbortSignal;
  }): Promise<{ readonly executor: string; readonly stopped: Promise<void> }>;
  readonly DEFAULT_QUEUE: string;
}
interface PiTransportLibrary {
  createPiTransport(options?: { readonly continueSession?: string }): unknown;
}

function isLibrary<T>(value: unknown, names: readonly string[]): value is T {
  return typeof value === 'object' && value !== null && names.every((name) => name in value);
}

/** The package's own plugin library, by its public export (self-reference), not by a path into the sources. */
async function library<T>(name: string, names: readonly string[]): Promise<T> {
  const specifier = `pi-extensible-workflows/plugins/${name}`;
  const loaded: unknown = await import(specifier);
  if (!isLibrary<T>(loaded, names)) throw new WorkflowError('INTERNAL_ERROR', `${specifier} does not export ${names.join(', ')}`);
  return loaded;
}

const PLAIN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

async function run(parsed: ParsedCommand, io: CliIo): Promise<number> {
  const database = stringOption(parsed, 'database') ?? process.env['WFCLI_WORKER_DATABASE'];
  if (database === undefined || !/^postgres(ql)?:\/\//.test(database)) throw new UsageError('--database <postgres://...> is required (or WFCLI_WORKER_DATABASE)');
  const queueOption = stringOption(parsed, 'queue');
  const remote = stringOption(parsed, 'remote') ?? 'origin';
  const concurrencyText = stringOption(parsed, 'concurrency') ?? '1';
  const concurrency = Number(concurrencyText);
  if (!/^\d+$/.test(concurrencyText) || concurrency < 1 || concurrency > 256) throw new UsageError(`--concurrency takes an integer from 1 to 256 (got ${concurrencyText})`);
  if (queueOption !== undefined && !PLAIN.test(queueOption)) throw new UsageError(`--queue takes a plain name (letters, digits, _ . -), got ${JSON.stringify(queueOption)}`);
  if (!PLAIN.test(remote)) throw new UsageError(`--remote takes a git remote name, got ${JSON.stringify(remote)}`);
  let repo: string;
  try {
    repo = realpathSync(stringOption(parsed, 'repo') ?? io.cwd);
  } catch (error) {
    throw new WorkflowError('CONFIG_ERROR', `--repo: ${messageOf(error)}`);
  }
  await useBundledPi({ cwd: io.cwd, ...(io.pi === undefined ? {} : { named: io.pi }) });
  const remoteAgents = await library<RemoteAgentsLibrary>('remote-agents', ['runWorker', 'DEFAULT_QUEUE']);
  const piTransport = await library<PiTransportLibrary>('pi-transport', ['createPiTransport']);
  const stop = new AbortController();
  const release = io.onInterrupt?.(() => stop.abort());
  try {
    const worker = await remoteAgents.runWorker({
      database,
      queue: queueOption ?? remoteAgents.DEFAULT_QUEUE,
      concurrency,
      repo,
      remote,
      transport: piTransport.createPiTransport(),
      continueTransport: (sessionFile) => piTransport.createPiTransport({ continueSession: sessionFile }),
      log: (line) => io.stderr(`${line}\n`),
      abandon: (reason) => {
        io.stderr(`${reason}\n`);
        // Nothing more may be recorded: the process ends here, its attempts go to live workers.
        process.exit(75);
      },
      signal: stop.signal,
    });
    await worker.stopped;
    io.stderr(`worker ${worker.executor} stopped\n`);
    return 0;
  } finally {
    release?.();
  }
}

export const workerCommand: CommandSpec = {
  name: 'worker',
  usage: ['wfcli worker --database <url> [--queue <name>] [--concurrency <n>] [--repo <folder>] [--remote <name>]'],
  help: `  --database <url>     the DBOS system database (postgres://...), as in the hosts'
                       extensionSettings["remote-agents"].database; default WFCLI_WORKER_DATABASE
  --queue <name>       the queue to take attempts from (default pi-agents)
  --concurrency <n>    attempts this worker runs at once, 1 to 256 (default 1)
  --repo <folder>      this machine's clone of the project (default the cwd)
  --remote <name>      the clone's remote to fetch base commits from and push
                       agents' commits to (default origin)

Runs remote agent attempts until Ctrl-C or SIGTERM (docs/remote.md). Each
attempt runs in a worktree of --repo at the commit the host's run started
from, with this machine's Pi models and auth; the agent's changes go back as
a commit on the branch wfcli/remote/<attempt>. Prints "worker <id> listening"
on stderr once it takes attempts.`,
  options: {
    database: { type: 'string' },
    queue: { type: 'string' },
    concurrency: { type: 'string' },
    repo: { type: 'string' },
    remote: { type: 'string' },
  },
  run,
};
