/**
 * The `wfcli` dispatcher (docs/wfcli.md "What starts when"): one module per
 * command, each a `CommandSpec` (command.ts), imported only when that command
 * runs (commands.ts). `--help`, `--version` and usage errors load no command;
 * Pi's SDK loads only inside the commands that need a headless Pi session,
 * and the relay only for `wfcli relay`.
 */
import { unsupportedNode } from '../kernel/node-version.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, helpText, parseCommand, reportError, type CliIo, type CommandSpec } from './command.js';
import { COMMANDS, type CommandEntry } from './commands.js';
import { PACKAGE_NAME, findPackage } from '../plugins/host/package-info.js';

export { COMMANDS, type CommandEntry } from './commands.js';

const RELAY_SUMMARY = 'Start the relay bridge (docs/relay.md); `wfcli relay --help` for its options.';

export function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((entry) => entry.name.length), 'relay'.length) + 2;
  const rows = [...COMMANDS.map((entry) => [entry.name, entry.summary] as const), ['relay', RELAY_SUMMARY] as const];
  return `usage: wfcli <command> [options]

Durable, sandboxed JavaScript workflows for Pi, from the shell.

commands:
${rows.map(([name, summary]) => `  ${name.padEnd(width)}${summary}\n`).join('')}
"wfcli <command> --help" describes a command; "wfcli --version" prints the
version. "--pi <path>" (or WFCLI_PI) names the Pi to use; default the "pi" on
PATH. Exit codes: 0 success, 1 a typed workflow error (CODE: message on
stderr), 2 a usage error.
`;
}

/** `doctor cleanup` is a command of its own; everything else is one word. */
function findCommand(argv: readonly string[]): { entry: CommandEntry; rest: readonly string[] } | undefined {
  const name = argv[0] === 'doctor' && argv[1] === 'cleanup' ? 'doctor cleanup' : argv[0];
  const entry = COMMANDS.find((candidate) => candidate.name === name);
  return entry === undefined ? undefined : { entry, rest: argv.slice(entry.name.split(' ').length) };
}

/** `<command> --help` (before any `--`) only prints: it sets nothing up for a session. */
function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((token) => token === '--help' || token === '-h');
}

/** `--version`: only this package's package.json is read, nothing of the engine or Pi loads. */
function version(io: CliIo): number {
  const found = findPackage();
  if (found === undefined) {
    io.stderr(`CONFIG_ERROR: Cannot find the ${PACKAGE_NAME} package this wfcli belongs to\n`);
    return EXIT_FAILED;
  }
  io.stdout(`${found.version}\n`);
  return EXIT_OK;
}

/**
 * `--pi <path>` (or `--pi=<path>`) anywhere before `--`: the Pi to use for
 * any command (cli/pi-locate.ts), taken out before the command parses.
 */
function takePiOption(argv: readonly string[]): { argv: readonly string[]; pi?: string } | string {
  const end = argv.indexOf('--');
  const head = end < 0 ? [...argv] : argv.slice(0, end);
  let pi: string | undefined;
  const rest: string[] = [];
  for (let index = 0; index < head.length; index++) {
    const token = head[index]!;
    if (token === '--pi') {
      const value = head[index + 1];
      if (value === undefined || value === '') return '--pi needs a path: the `pi` command or the Pi package folder';
      pi = value;
      index++;
    } else if (token.startsWith('--pi=')) {
      pi = token.slice('--pi='.length);
      if (pi === '') return '--pi needs a path: the `pi` command or the Pi package folder';
    } else rest.push(token);
  }
  const all = end < 0 ? rest : [...rest, ...argv.slice(end)];
  return pi === undefined ? { argv: all } : { argv: all, pi };
}

/** What the executable adds around a command (cli/wfcli.ts); a test calling `main` needs none. */
export interface MainHooks {
  /**
   * Runs once the command is known, before its module loads (`--help` and usage errors never reach it).
   * `opensSession`: the command will open a headless Pi session (commands.ts), and was not asked for its help.
   */
  readonly beforeCommand?: (io: CliIo, command: { readonly opensSession: boolean }) => void | Promise<void>;
}

export async function main(args: readonly string[], baseIo: CliIo, hooks: MainHooks = {}): Promise<number> {
  const taken = takePiOption(args);
  if (typeof taken === 'string') {
    baseIo.stderr(`wfcli: ${taken}\n${mainHelp()}`);
    return EXIT_USAGE;
  }
  const { argv } = taken;
  const io: CliIo = taken.pi === undefined ? baseIo : { ...baseIo, pi: taken.pi };
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) return version(io);
  const oldNode = unsupportedNode();
  if (oldNode !== undefined) {
    io.stderr(`CONFIG_ERROR: ${oldNode}\n`);
    return EXIT_FAILED;
  }
  const [command, ...rest] = argv;
  // The relay bridge is a separate service; load it only when asked for.
  if (command === 'relay') return (await import('../relay/cli.js')).main(rest);
  if (command === '--help' || command === '-h' || (command === 'help' && rest.length === 0)) {
    io.stdout(mainHelp());
    return EXIT_OK;
  }
  if (command === 'help') return main([...rest, '--help'], io, hooks);
  const found = findCommand(argv);
  if (found === undefined) {
    io.stderr(`${command === undefined ? '' : `wfcli: unknown command "${command}"\n`}${mainHelp()}`);
    return EXIT_USAGE;
  }
  const { entry } = found;
  let spec: CommandSpec;
  try {
    await hooks.beforeCommand?.(io, { opensSession: entry.opensSession === true && !asksForHelp(found.rest) });
    spec = await entry.load();
  } catch (error) {
    // A damaged installation: the command's module cannot be imported.
    return reportError(error, io);
  }
  try {
    const parsed = parseCommand(spec, found.rest);
    if (parsed === 'help') {
      io.stdout(helpText(spec, entry.summary));
      return EXIT_OK;
    }
    return await spec.run(parsed, io);
  } catch (error) {
    return reportError(error, io, spec);
  }
}
