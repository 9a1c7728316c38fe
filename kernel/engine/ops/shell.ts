/**
 * The `shell` primitive: a platform-shell command in the workflow cwd. A
 * nonzero exit is a result; a launch failure or time-out is SHELL_FAILED.
 */
import spawn, { SubprocessError } from 'nano-spawn';
import { WorkflowError, isWorkflowError, messageOf } from '../../errors.js';
import type { ShellResult } from '../../contracts/function-context.js';
import { prefix, RECORDED_PREFIX_BYTES } from '../run-log.js';
import { failedCall, recordCall, type ShellCallRecord } from '../call-records.js';
import { mismatch, type JournalRecord } from '../journal-record.js';
import type { JsonValue } from '../../json.js';

/** The longest delay a Node timer can hold. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export interface ShellRequest {
  readonly command: string;
  readonly timeoutMs?: number;
  readonly env?: Readonly<Record<string, string>>;
}

export function parseShellArgs(args: readonly unknown[]): ShellRequest {
  const [command, options] = args;
  if (typeof command !== 'string' || command.trim() === '') throw new WorkflowError('INVALID_METADATA', 'shell needs a non-empty command string');
  if (options === undefined || options === null) return { command };
  if (typeof options !== 'object' || Array.isArray(options)) throw new WorkflowError('INVALID_METADATA', 'shell options must be an object');
  const { timeoutMs, env, ...rest } = options as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new WorkflowError('INVALID_METADATA', `shell has no option "${unknown[0]}" (options: timeoutMs, env)`);
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs <= 0)) {
    throw new WorkflowError('INVALID_METADATA', 'shell timeoutMs must be a positive integer');
  }
  // Node's timers hold at most 2^31-1 ms; a longer delay would fire at once.
  if (typeof timeoutMs === 'number' && timeoutMs > MAX_TIMEOUT_MS) {
    throw new WorkflowError('INVALID_METADATA', `shell timeoutMs must be at most ${MAX_TIMEOUT_MS} (about 24.8 days)`, { limit: MAX_TIMEOUT_MS });
  }
  if (env !== undefined) {
    if (typeof env !== 'object' || env === null || Array.isArray(env)) throw new WorkflowError('INVALID_METADATA', 'shell env must be an object of strings');
    for (const [name, value] of Object.entries(env)) {
      // An environment entry is NAME=VALUE: a name cannot be empty or hold "=", and neither part a NUL.
      if (name === '' || name.includes('=') || name.includes('\0')) {
        throw new WorkflowError('INVALID_METADATA', `shell env name ${JSON.stringify(name)} is invalid: names must be non-empty and contain neither "=" nor NUL`);
      }
      if (typeof value !== 'string') throw new WorkflowError('INVALID_METADATA', `shell env "${name}" must be a string`);
      if (value.includes('\0')) throw new WorkflowError('INVALID_METADATA', `shell env "${name}" must not contain NUL`);
    }
  }
  return { command, ...(timeoutMs === undefined ? {} : { timeoutMs: timeoutMs as number }), ...(env === undefined ? {} : { env: env as Record<string, string> }) };
}

/**
 * nano-spawn strips one final newline ("\n" or "\r\n") from each stream; the
 * last characters each stream really wrote put it back, so the result holds
 * exactly the bytes the command produced (spec 1: output is not truncated).
 */
function exactOutput(subprocess: ReturnType<typeof spawn>): (stripped: { stdout: string; stderr: string }) => { stdout: string; stderr: string } {
  const tails = { stdout: '', stderr: '' };
  // The process resolves in the microtasks right after its spawn event, before any output can arrive.
  void subprocess.nodeChildProcess.then(
    (instance) => {
      instance.stdout?.on('data', (chunk: string) => (tails.stdout = (tails.stdout + chunk).slice(-2)));
      instance.stderr?.on('data', (chunk: string) => (tails.stderr = (tails.stderr + chunk).slice(-2)));
    },
    () => undefined,
  );
  const restore = (text: string, tail: string) => (tail.endsWith('\r\n') ? `${text}\r\n` : tail.endsWith('\n') ? `${text}\n` : text);
  return (stripped) => ({ stdout: restore(stripped.stdout, tails.stdout), stderr: restore(stripped.stderr, tails.stderr) });
}

export async function runShell(request: ShellRequest, cwd: string, signal: AbortSignal): Promise<ShellResult> {
  const timeout = new AbortController();
  const timer = request.timeoutMs === undefined ? undefined : setTimeout(() => timeout.abort(), request.timeoutMs);
  const abort = AbortSignal.any([signal, timeout.signal]);
  let exact: ReturnType<typeof exactOutput> | undefined;
  try {
    const subprocess = spawn(request.command, [], { shell: true, cwd, env: { ...request.env }, signal: abort, stdin: 'ignore' });
    exact = exactOutput(subprocess);
    const result = await subprocess;
    return { exitCode: 0, ...exact(result) };
  } catch (error) {
    if (timeout.signal.aborted) {
      throw new WorkflowError('SHELL_FAILED', `shell command timed out after ${request.timeoutMs} ms`, { timeoutMs: request.timeoutMs ?? 0 });
    }
    if (signal.aborted) throw new WorkflowError('CANCELLED', 'shell command cancelled: the run was stopped');
    if (error instanceof SubprocessError && typeof error.exitCode === 'number') {
      const output = { stdout: error.stdout, stderr: error.stderr };
      return { exitCode: error.exitCode, ...(exact ? exact(output) : output) };
    }
    const reason = error instanceof SubprocessError && error.signalName ? `terminated by ${error.signalName}` : (error as Error).message;
    throw new WorkflowError('SHELL_FAILED', `shell command could not run: ${reason}`);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

export interface ShellCallPlace {
  readonly key: string;
  readonly scope: readonly string[];
  readonly phase: string | undefined;
  readonly cwd: string;
  readonly runDir: string;
  readonly maxValueBytes: number;
  readonly signal: AbortSignal;
}

/**
 * Runs the command and keeps its call record (spec 1: inputs, results and
 * error messages as 16 KB prefixes; environment overrides by name only).
 */
export async function recordedShell(request: ShellRequest, place: ShellCallPlace): Promise<ShellResult> {
  const metadata = {
    key: place.key,
    op: 'shell' as const,
    path: [...place.scope],
    phase: place.phase ?? null,
    startedAt: new Date().toISOString(),
    command: prefix(request.command, RECORDED_PREFIX_BYTES),
    env: Object.keys(request.env ?? {}),
    timeoutMs: request.timeoutMs ?? null,
  };
  try {
    const value = await runShell(request, place.cwd, place.signal);
    const size = Buffer.byteLength(JSON.stringify(value));
    if (size > place.maxValueBytes) {
      throw new WorkflowError('RPC_LIMIT_EXCEEDED', `shell output of ${size} bytes exceeds the ${place.maxValueBytes}-byte RPC limit`);
    }
    recordCall<ShellCallRecord>(place.runDir, {
      ...metadata,
      endedAt: new Date().toISOString(),
      status: 'completed' as const,
      exitCode: value.exitCode,
      stdout: prefix(value.stdout, RECORDED_PREFIX_BYTES),
      stderr: prefix(value.stderr, RECORDED_PREFIX_BYTES),
    });
    return value;
  } catch (error) {
    const failure = isWorkflowError(error) ? error : new WorkflowError('SHELL_FAILED', messageOf(error));
    recordCall<ShellCallRecord>(place.runDir, { ...metadata, endedAt: new Date().toISOString(), ...failedCall(failure), error: prefix(failure.message, RECORDED_PREFIX_BYTES) });
    throw failure;
  }
}

/** A journaled shell result, or the replay's mismatch. */
export function replayShell(record: JournalRecord): JsonValue {
  return record.kind === 'shell' ? (record.value as unknown as JsonValue) : mismatch(record, 'shell');
}

/** Runs a shell call that holds its journal key; its arguments are parsed now, so an invalid call still counts as an occurrence, as in the sandbox. */
export async function performShell(args: readonly JsonValue[], place: ShellCallPlace): Promise<{ value: JsonValue; body: { kind: 'shell'; value: ShellResult } }> {
  const value = await recordedShell(parseShellArgs(args), place);
  return { value: { ...value }, body: { kind: 'shell', value } };
}
