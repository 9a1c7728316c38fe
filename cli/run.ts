/**
 * `wfcli run --script <file> [--name <n>] [--input <json>] [--budget <json>]`:
 * a file-backed launch in a headless Pi session (headless-host.ts), so the
 * run gets exactly the features (plugin entries) Pi would load for this cwd.
 * The run ID goes to stderr as soon as the run exists; the final value goes
 * to stdout.
 */
import { readFileSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { WorkflowError, type JsonValue } from '../kernel/index.js';
import { createLocalPiSession, type LocalPiSessionOptions } from './headless-host.js';

export interface RunCommand {
  readonly script: string;
  readonly name?: string;
  readonly input?: string;
  /** The run's budget (spec 1 "Budget"), as JSON; needs the budgets plugin. */
  readonly budget?: string;
  /** `--approve` (true), `--no-approve` (false), neither (Pi's trust decision). */
  readonly approve?: boolean;
}

export interface CliIo {
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Pi's agent dir; default `PI_CODING_AGENT_DIR` else `~/.pi/agent`. */
  readonly agentDir?: string;
}

function parseJson(flag: string, text: string | undefined): JsonValue | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new WorkflowError('INVALID_METADATA', `${flag} is not valid JSON: ${(error as Error).message}`);
  }
}

function readSource(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new WorkflowError('INVALID_METADATA', `Cannot read workflow script ${path}: ${(error as Error).message}`, { path });
  }
}

/** Returns the process exit code. */
export async function runCommand(command: RunCommand, io: CliIo): Promise<number> {
  const scriptPath = resolve(io.cwd, command.script);
  const name = command.name ?? basename(scriptPath, extname(scriptPath));
  const args = parseJson('--input', command.input) ?? null;
  const budget = parseJson('--budget', command.budget);
  const source = readSource(scriptPath);
  const options: LocalPiSessionOptions = {
    cwd: io.cwd,
    ...(io.agentDir === undefined ? {} : { agentDir: io.agentDir }),
    ...(command.approve === undefined ? {} : { trust: command.approve }),
  };
  const local = await createLocalPiSession(options);
  try {
    for (const warning of local.warnings) io.stderr(`warning: ${warning}\n`);
    const { host } = local;
    const inspected = host.engine.inspect(source);
    if (Object.values(inspected.sites).some((site) => site.callee === 'checkpoint')) {
      throw new WorkflowError('INVALID_METADATA', 'Workflows containing checkpoints cannot run headless; launch them from Pi');
    }
    const handle = await host.engine.launch({ name, cwd: host.cwd, script: source, args, foreground: true, ...(budget === undefined ? {} : { options: { budget } }) });
    // No await before adopting: the script's first tools.X call finds the run adopted.
    host.adopt(handle);
    io.stderr(`run ${handle.runId}\n`);
    const outcome = await handle.outcome;
    if (outcome.state === 'completed') {
      io.stdout(`${JSON.stringify(outcome.value ?? null, null, 2)}\n`);
      return 0;
    }
    io.stderr(`${outcome.error?.code ?? outcome.state}: ${outcome.error?.message ?? `the run ended ${outcome.state}`}\n`);
    return 1;
  } finally {
    await local.dispose();
  }
}
