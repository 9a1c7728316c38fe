/**
 * The `wfcli` dispatcher (docs/wfcli.md): one module per command, each a
 * `CommandSpec` (command.ts). Pi's SDK loads only inside the commands that
 * need a headless Pi session, and the relay only for `wfcli relay`, so help
 * and usage errors stay fast.
 */
import { cleanupCommand } from './cleanup.js';
import { unsupportedNode } from '../kernel/node-version.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, helpText, parseCommand, reportError, type CliIo, type CommandSpec } from './command.js';
import { doctorCommand } from './doctor.js';
import { exportCommand } from './export.js';
import { PACKAGE_NAME, findPackage } from '../plugins/host/package-info.js';
import { bundleCommand } from './bundle/command.js';
import { inspectCommand } from './inspect.js';
import { listCommand } from './list.js';
import { reportCommand } from './report.js';
import { resumeCommand } from './resume.js';
import { retryCommand } from './retry.js';
import { runCommand } from './run.js';
import { statusCommand } from './status.js';
import { stopCommand } from './stop.js';
import { transcriptCommand } from './transcript.js';

/** In the order `wfcli --help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  runCommand,
  statusCommand,
  listCommand,
  resumeCommand,
  retryCommand,
  stopCommand,
  doctorCommand,
  cleanupCommand,
  inspectCommand,
  transcriptCommand,
  reportCommand,
  exportCommand,
  bundleCommand,
];

const RELAY_SUMMARY = 'Start the relay bridge (docs/relay.md); `wfcli relay --help` for its options.';

export function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((spec) => spec.name.length), 'relay'.length) + 2;
  const rows = [...COMMANDS.map((spec) => [spec.name, spec.summary] as const), ['relay', RELAY_SUMMARY] as const];
  return `usage: wfcli <command> [options]

Durable, sandboxed JavaScript workflows for Pi, from the shell.

commands:
${rows.map(([name, summary]) => `  ${name.padEnd(width)}${summary}\n`).join('')}
"wfcli <command> --help" describes a command; "wfcli --version" prints the
version. Exit codes: 0 success, 1 a typed workflow error (CODE: message on
stderr), 2 a usage error.
`;
}

/** `doctor cleanup` is a command of its own; everything else is one word. */
function findCommand(argv: readonly string[]): { spec: CommandSpec; rest: readonly string[] } | undefined {
  const [first, second, ...rest] = argv;
  if (first === 'doctor' && second === 'cleanup') return { spec: cleanupCommand, rest };
  const spec = COMMANDS.find((candidate) => candidate.name === first);
  return spec === undefined ? undefined : { spec, rest: argv.slice(1) };
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

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
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
  if (command === 'help') return main([...rest, '--help'], io);
  const found = findCommand(argv);
  if (found === undefined) {
    io.stderr(`${command === undefined ? '' : `wfcli: unknown command "${command}"\n`}${mainHelp()}`);
    return EXIT_USAGE;
  }
  const { spec } = found;
  try {
    const parsed = parseCommand(spec, found.rest);
    if (parsed === 'help') {
      io.stdout(helpText(spec));
      return EXIT_OK;
    }
    return await spec.run(parsed, io);
  } catch (error) {
    return reportError(error, io, spec);
  }
}
