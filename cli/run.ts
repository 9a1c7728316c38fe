/**
 * `wfcli run --script <file> [--name <n>] [--input <json>]`: a file-backed,
 * headless launch. The run ID goes to stderr as soon as the run exists; the
 * final value goes to stdout.
 */
import { readFileSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { WorkflowError } from '../kernel/errors.js';
import type { JsonValue } from '../kernel/json.js';
import { createKernel } from '../kernel/kernel.js';
import { WorkflowEngine } from '../kernel/engine/engine.js';
import type { KernelPlugin } from '../kernel/plugin-api.js';
import { evidencePlugin } from '../plugins/evidence/index.js';

export interface RunCommand {
  readonly script: string;
  readonly name?: string;
  readonly input?: string;
  readonly approve?: boolean;
}

export interface CliIo {
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly plugins?: readonly KernelPlugin[];
  readonly root?: string;
}

function parseInput(text: string | undefined): JsonValue {
  if (text === undefined) return null;
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new WorkflowError('INVALID_METADATA', `--input is not valid JSON: ${(error as Error).message}`);
  }
}

/** Returns the process exit code. */
export async function runCommand(command: RunCommand, io: CliIo): Promise<number> {
  const scriptPath = resolve(io.cwd, command.script);
  const name = command.name ?? basename(scriptPath, extname(scriptPath));
  const args = parseInput(command.input);
  const kernel = createKernel({ plugins: [evidencePlugin, ...(io.plugins ?? [])] });
  const engine = new WorkflowEngine({
    kernel,
    sessionId: `cli-${randomUUID()}`,
    projectTrusted: command.approve ?? false,
    ...(io.root === undefined ? {} : { root: io.root }),
  });
  try {
    const source = readSource(scriptPath);
    const inspected = engine.inspect(source);
    if (Object.values(inspected.sites).some((site) => site.callee === 'checkpoint')) {
      throw new WorkflowError('INVALID_METADATA', 'Workflows containing checkpoints cannot run headless; launch them from Pi');
    }
    const handle = await engine.launch({ name, cwd: io.cwd, script: source, args, foreground: true });
    io.stderr(`run ${handle.runId}\n`);
    const outcome = await handle.outcome;
    if (outcome.state === 'completed') {
      io.stdout(`${JSON.stringify(outcome.value ?? null, null, 2)}\n`);
      return 0;
    }
    io.stderr(`${outcome.error?.code ?? outcome.state}: ${outcome.error?.message ?? `the run ended ${outcome.state}`}\n`);
    return 1;
  } finally {
    await engine.close();
  }
}

function readSource(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new WorkflowError('INVALID_METADATA', `Cannot read workflow script ${path}: ${(error as Error).message}`, { path });
  }
}
