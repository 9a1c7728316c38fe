/**
 * What every `wfcli` command shares: its I/O, the exit codes, argument
 * parsing with Node's `util.parseArgs` (plus `--help`), and how errors are
 * printed (`<CODE>: message` on stderr).
 *
 * The dispatcher imports a command's module only to run it (commands.ts);
 * still, a command module must not import Pi's SDK at its top level, so
 * `wfcli <command> --help` and usage errors stay fast and Pi loads only
 * where a command opens a headless session (session.ts).
 */
import { createRequire } from 'node:module';
import { isWorkflowError, messageOf } from '../kernel/errors.js';
import { printableLines } from '../lib/terminal-text.js';

// Required, not imported: an ESM import of node:util builds a facade that
// evaluates every lazy export (TextDecoder, util.diff and its colors), about
// 5 ms of CPU on every wfcli command.
export const { parseArgs } = createRequire(import.meta.url)('node:util') as typeof import('node:util');

/** Success. */
export const EXIT_OK = 0;
/** A typed workflow error (or a run that did not complete). */
export const EXIT_FAILED = 1;
/** A usage error: unknown command or flag, a missing or extra argument. */
export const EXIT_USAGE = 2;

export interface CliIo {
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Progress lines are drawn only on a terminal. */
  readonly stderrIsTTY: boolean;
  /** The terminal's width, for the progress line; undefined when unknown. */
  readonly columns?: number | undefined;
  /** Calls `handler` on Ctrl-C (SIGINT) or SIGTERM until the returned function is called. */
  readonly onInterrupt?: (handler: () => void) => () => void;
  /** Pi's agent dir; default `PI_CODING_AGENT_DIR` else `~/.pi/agent`. */
  readonly agentDir?: string;
  /** `--pi <path>`: the Pi to use (cli/pi-locate.ts); default `WFCLI_PI`, else the `pi` on PATH. */
  readonly pi?: string;
  /** Where runs are stored; default `~/.pi/workflows`. */
  readonly home?: string;
  /** Portable bundle modules registered before Pi loads extensions (a bundle's launcher): proven sources under spec 2 rule 9. */
  readonly bundleModules?: readonly string[];
}

export type OptionSpec = { readonly type: 'string' | 'boolean'; readonly short?: string; readonly multiple?: boolean };

export interface ParsedCommand {
  readonly values: Readonly<Record<string, string | boolean | readonly (string | boolean)[] | undefined>>;
  /** Positionals before `--`. */
  readonly positionals: readonly string[];
  /** Every token after the first `--`, untouched (workflow input of `run`). */
  readonly rest: readonly string[];
  /** Whether a `--` was given. */
  readonly terminated: boolean;
}

export interface CommandSpec {
  /** As typed: `run`, `doctor cleanup`. */
  readonly name: string;
  /** The usage lines, without the leading `usage:`. */
  readonly usage: readonly string[];
  /** Options, positionals and behaviour, for `wfcli <command> --help`. */
  readonly help: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** How many positionals before `--` (default none). */
  readonly positionals?: { readonly min: number; readonly max: number };
  /** Whether tokens after `--` are accepted (default not). */
  readonly acceptsRest?: boolean;
  run(parsed: ParsedCommand, io: CliIo): Promise<number>;
}

/** A bad command line: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function usageText(spec: CommandSpec): string {
  return `usage:\n${spec.usage.map((line) => `  ${line}\n`).join('')}`;
}

/** `summary`: the command's line in `wfcli --help` (commands.ts). */
export function helpText(spec: CommandSpec, summary: string): string {
  return `${usageText(spec)}\n${summary}\n\n${spec.help.trimEnd()}\n`;
}

/** `util.parseArgs` over the command's options plus `--help`; the first `--` ends the options. */
export function parseCommand(spec: CommandSpec, argv: readonly string[]): ParsedCommand | 'help' {
  const { values, positionals, tokens } = parseArgs({
    args: [...argv],
    options: { ...spec.options, help: { type: 'boolean', short: 'h' } },
    strict: true,
    allowPositionals: true,
    tokens: true,
  });
  if (values.help === true) return 'help';
  const terminator = tokens.find((token) => token.kind === 'option-terminator');
  const before = terminator === undefined ? positionals : tokens.flatMap((token) => (token.kind === 'positional' && token.index < terminator.index ? [token.value] : []));
  const rest = terminator === undefined ? [] : argv.slice(terminator.index + 1);
  const { min, max } = spec.positionals ?? { min: 0, max: 0 };
  if (before.length < min) throw new UsageError(`missing argument: ${spec.usage[0] ?? spec.name}`);
  if (before.length > max) throw new UsageError(`unexpected argument "${before[max] ?? ''}"`);
  if (terminator !== undefined && spec.acceptsRest !== true) throw new UsageError('"--" is not accepted here');
  return { values, positionals: before, rest, terminated: terminator !== undefined };
}

export function stringOption(parsed: ParsedCommand, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
}

export function flag(parsed: ParsedCommand, name: string): boolean {
  return parsed.values[name] === true;
}

/** `--approve` (true), `--no-approve` (false), neither (undefined: Pi decides). */
export function trustOverride(parsed: ParsedCommand): boolean | undefined {
  const approve = flag(parsed, 'approve');
  const deny = flag(parsed, 'no-approve');
  if (approve && deny) throw new UsageError('--approve and --no-approve exclude each other');
  return approve ? true : deny ? false : undefined;
}

export const TRUST_OPTIONS: Readonly<Record<string, OptionSpec>> = { approve: { type: 'boolean' }, 'no-approve': { type: 'boolean' } };

/** Options every command that shows data has. */
export const JSON_OPTION: Readonly<Record<string, OptionSpec>> = { json: { type: 'boolean' } };

export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints a thrown error as `<CODE>: message` and returns its exit code. Messages quote names, paths and script text: `printableLines`. */
export function reportError(error: unknown, io: CliIo, spec?: CommandSpec): number {
  if (error instanceof UsageError || isParseError(error)) {
    io.stderr(`wfcli${spec === undefined ? '' : ` ${spec.name}`}: ${printableLines(messageOf(error))}\n${spec === undefined ? '' : usageText(spec)}`);
    return EXIT_USAGE;
  }
  if (!isWorkflowError(error)) io.stderr(`INTERNAL_ERROR: ${printableLines(messageOf(error))}\n`);
  // The host's refusal in an untrusted project names Pi's ways to trust it; the shell has one more.
  else if (error.details?.reason === 'untrusted_project') io.stderr(`${error.code}: ${printableLines(error.message)} With wfcli, --approve trusts the project for one command and --no-approve runs it without the project's files.\n`);
  else io.stderr(`${error.code}: ${printableLines(error.message)}\n`);
  return EXIT_FAILED;
}

/** `util.parseArgs` throws TypeErrors with `ERR_PARSE_ARGS_*` codes for bad command lines. */
function isParseError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}
