/**
 * `wfcli run`: a registered workflow function by name, or a script file, in
 * a headless Pi session (headless-host.ts) that loads what Pi would load for
 * this cwd, so the run gets exactly Pi's features. Tokens before `--` are
 * launcher options, tokens after it are the workflow's input
 * (workflow-input.ts). The run ID goes to stderr as soon as the run exists,
 * the value to stdout (follow.ts).
 */
import { readFileSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { WorkflowError, isWorkflowError, loadingRegistry, type JsonValue } from '../kernel/index.js';
import { prestartSandbox } from '../kernel/sandbox/prestart.js';
import { checkpointingFunction, headlessCheckpointError, refuseCheckpoints } from '../plugins/host/headless-checkpoints.js';
import { JSON_OPTION, TRUST_OPTIONS, UsageError, flag, stringOption, trustOverride, type CliIo, type CommandSpec, type ParsedCommand } from './command.js';
import { followRun } from './follow.js';
import type { LocalPiSession } from './headless-host.js';
import { parseJsonOption, withLocalSession } from './session.js';
import { storeRoot } from './stored-run.js';
import { parseWorkflowInput } from './workflow-input.js';

function readSource(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new WorkflowError('INVALID_METADATA', `Cannot read workflow script ${path}: ${(error as Error).message}`, { path });
  }
}

/** `--input` (an object when flat arguments are merged over it) plus the flat arguments. */
function workflowInput(base: JsonValue | undefined, rest: readonly string[], schema?: Readonly<Record<string, unknown>>): JsonValue {
  if (rest.length === 0) return base ?? null;
  if (base !== undefined && (typeof base !== 'object' || base === null || Array.isArray(base))) {
    throw new UsageError('--input must be a JSON object when workflow arguments follow "--"');
  }
  return { ...base, ...parseWorkflowInput(rest, schema) };
}

/** The script a registered function runs in: its input is the run's `args`. */
export function functionScript(name: string): string {
  return `return await ${name}(args);\n`;
}

/** A preflight failure on a name nobody defines may come from an extension that failed to load. */
function withLoadErrors(error: unknown, local: LocalPiSession): unknown {
  if (local.loadErrors.length === 0 || !isWorkflowError(error) || error.code !== 'INVALID_SYNTAX' || !error.message.includes('is not defined')) return error;
  return new WorkflowError(error.code, `${error.message} (extensions failed to load: ${local.loadErrors.join('; ')})`, error.details);
}

interface Launch {
  readonly name: string;
  readonly source: string;
  readonly args: JsonValue;
}

function byName(name: string, base: JsonValue | undefined, rest: readonly string[]): Launch {
  const registry = loadingRegistry();
  const fn = registry.getFunction(name);
  if (fn === undefined) {
    const known = [...registry.functions().keys()].sort();
    throw new WorkflowError('MISSING_WORKFLOW', `No workflow function named "${name}" is registered here (${known.length === 0 ? 'none is' : `registered: ${known.join(', ')}`})`, { name });
  }
  const checkpointing = checkpointingFunction([name]);
  if (checkpointing !== undefined) throw headlessCheckpointError(`the registered function "${checkpointing}" uses checkpoint`);
  // A function takes one object: no input at all is the empty one.
  return { name, source: functionScript(name), args: workflowInput(base ?? {}, rest, fn.definition.input) };
}

function byScript(local: LocalPiSession, path: string, source: string, name: string | undefined, base: JsonValue | undefined, rest: readonly string[]): Launch {
  const inspected = local.host.engine.inspect(source);
  refuseCheckpoints(Object.values(inspected.sites), inspected.functionCalls);
  // --name, else the script's `export const meta = { name }`, else the file name.
  return { name: name ?? inspected.meta?.name ?? basename(path, extname(path)), source, args: workflowInput(base, rest) };
}

async function run(parsed: ParsedCommand, io: CliIo): Promise<number> {
  const script = stringOption(parsed, 'script');
  const [workflowName] = parsed.positionals;
  if (script !== undefined && workflowName !== undefined) throw new UsageError('give a workflow name or --script, not both');
  if (script === undefined && workflowName === undefined) throw new UsageError('give a workflow name or --script <file>');
  if (script === undefined && stringOption(parsed, 'name') !== undefined) throw new UsageError('--name names a --script run; a registered workflow runs under its own name');
  const base = parseJsonOption('--input', stringOption(parsed, 'input'));
  const budget = parseJsonOption('--budget', stringOption(parsed, 'budget'));
  const trust = trustOverride(parsed);
  // A missing script fails before Pi starts.
  const scriptPath = script === undefined ? undefined : resolve(io.cwd, script);
  const source = scriptPath === undefined ? undefined : readSource(scriptPath);
  // The sandbox process starts now, while Pi's SDK loads: the engine's pool takes it as its spare.
  prestartSandbox(storeRoot(io));
  return withLocalSession(io, trust === undefined ? {} : { trust }, async (local) => {
    const { host } = local;
    let launch: Launch;
    let handle;
    try {
      launch =
        scriptPath === undefined || source === undefined
          ? byName(workflowName ?? '', base, parsed.rest)
          : byScript(local, scriptPath, source, stringOption(parsed, 'name'), base, parsed.rest);
      handle = await host.engine.launch({ name: launch.name, cwd: host.cwd, script: launch.source, args: launch.args, foreground: true, ...(budget === undefined ? {} : { options: { budget } }) });
    } catch (error) {
      throw withLoadErrors(error, local);
    }
    return followRun(local, handle, io, { json: flag(parsed, 'json'), name: launch.name });
  });
}

export const runCommand: CommandSpec = {
  name: 'run',
  usage: [
    'wfcli run <workflow-name> [--input <json>] [--budget <json>] [--approve | --no-approve] [--json] [-- --key value ...]',
    'wfcli run --script <workflow.js> [--name <workflow-name>] [--input <json>] [--budget <json>] [--approve | --no-approve] [--json] [-- --key value ...]',
  ],
  help: `Tokens before "--" are launcher options; tokens after it are the workflow's input:
"--key value" pairs (or --key=value; a bare --key is true). A registered
function's input schema types them: a string property keeps the text, any
other value is parsed as JSON when it is JSON, else kept as text; --input-key
fills inputKey when the schema has that property; a repeated key or an array
property collects a list. --input <json> is the input, or the object the
flat arguments are merged over.

  --script <file>    run this script file (the name defaults to the script's "export const meta = { name }",
                     else to the file name without its extension)
  --name <name>      the run's workflow name (with --script)
  --input <json>     the workflow's args
  --budget <json>    the run's budget, e.g. '{"agentLaunches":{"hard":5}}'
  --approve          trust the project for this run (project settings and resources apply)
  --no-approve       run without the project's settings and resources; default: the
                     decision stored for the project (an undecided or untrusted project
                     is refused; docs/settings.md "Trust")
  --json             print the whole outcome {runId, state, value?, error?} instead of the value

The run ID goes to stderr ("run wf-...") as soon as the run exists; the final
value goes to stdout as JSON. Exit 0 when the run completed; 1 when it did not
(its CODE: message on stderr; an interrupted or budget-exhausted run says how
to resume it) or the launch was refused; 2 for a usage error. Workflows
containing checkpoints are refused: nobody can answer them headless. Ctrl-C
interrupts the run; "wfcli resume <run-id>" continues it.`,
  options: { script: { type: 'string' }, name: { type: 'string' }, input: { type: 'string' }, budget: { type: 'string' }, ...TRUST_OPTIONS, ...JSON_OPTION },
  positionals: { min: 0, max: 1 },
  acceptsRest: true,
  run,
};
