/**
 * The `shell` primitive: a platform-shell command in the workflow cwd, in a
 * process group of its own (shell-process.ts) recorded in `processes.jsonl`
 * (shell-records.ts). A nonzero exit is a result; a launch failure or
 * time-out is SHELL_FAILED; output past the RPC boundary is
 * RPC_LIMIT_EXCEEDED, decided while it is read.
 */
import { WorkflowError, isWorkflowError, messageOf } from '../../errors.js';
import type { ShellResult } from '../../contracts/function-context.js';
import { appendRunEvent, prefix, RECORDED_PREFIX_BYTES } from '../run-log.js';
import { failedCall, recordCall, type ShellCallRecord } from '../call-records.js';
import { mismatch, type JournalRecord } from '../journal-record.js';
import type { JsonValue } from '../../json.js';
import { runShellProcess, type ShellGroup } from './shell-process.js';
import { recordGroupEnded, recordGroupStarted } from './shell-records.js';

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

/** UTF-8 bytes of the JSON text of `text`, decoded from `bytes`, without building that text. */
function jsonStringBytes(bytes: Buffer, text: string): number {
  // Decoding never merges an ASCII byte into a replacement character, so every escape is one ASCII byte.
  let extra = 0;
  for (let index = 0; index < bytes.length; index += 1) {
    const byte = bytes[index]!;
    if (byte >= 0x20) {
      if (byte === 0x22 || byte === 0x5c) extra += 1;
    } else extra += byte === 0x08 || byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d ? 1 : 5;
  }
  return Buffer.byteLength(text) + 2 + extra;
}

/** The bytes of `JSON.stringify(result)`; counted, because the text of escaped output can be six times its bytes. */
export function shellResultBytes(exitCode: number, stdout: Buffer, stderr: Buffer, decoded: { stdout: string; stderr: string }): number {
  return Buffer.byteLength(JSON.stringify({ exitCode, stdout: '', stderr: '' })) - 4 + jsonStringBytes(stdout, decoded.stdout) + jsonStringBytes(stderr, decoded.stderr);
}

export interface ShellPlace {
  readonly cwd: string;
  readonly signal: AbortSignal;
  /** The RPC boundary: the result's JSON text must fit it. */
  readonly maxValueBytes: number;
  /** Called once the group exists (before any output is read); a throw fails the call with nothing run. */
  readonly onStart?: (group: ShellGroup) => void;
  readonly onEnd?: (group: ShellGroup, stopped: boolean) => void;
  readonly onPipesHeld?: (group: ShellGroup) => void;
}

/**
 * Runs the command (shell-process.ts) and turns how it ended into a result
 * or a typed error. The output is returned byte for byte, decoded as UTF-8.
 */
export async function runShell(request: ShellRequest, place: ShellPlace): Promise<ShellResult> {
  const max = place.maxValueBytes;
  const end = await runShellProcess({
    command: request.command,
    cwd: place.cwd,
    env: request.env ?? {},
    ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
    signal: place.signal,
    maxBytes: max,
    onStart: place.onStart ?? (() => undefined),
    ...(place.onEnd ? { onEnd: place.onEnd } : {}),
    ...(place.onPipesHeld ? { onPipesHeld: place.onPipesHeld } : {}),
  });
  switch (end.kind) {
    case 'exit': {
      const decoded = { stdout: end.stdout.toString('utf8'), stderr: end.stderr.toString('utf8') };
      const size = shellResultBytes(end.exitCode, end.stdout, end.stderr, decoded);
      if (size > max) throw new WorkflowError('RPC_LIMIT_EXCEEDED', `shell output of ${size} bytes exceeds the ${max}-byte RPC limit`, { limit: max, bytes: size });
      return { exitCode: end.exitCode, ...decoded };
    }
    case 'overflow':
      throw new WorkflowError(
        'RPC_LIMIT_EXCEEDED',
        `shell output passed the ${max}-byte RPC limit (${end.bytes} bytes of stdout and stderr read); the command was stopped. Write large output to a file and read the part you need`,
        { limit: max, bytes: end.bytes },
      );
    case 'timeout':
      throw new WorkflowError('SHELL_FAILED', `shell command timed out after ${request.timeoutMs} ms; its process group was stopped`, { timeoutMs: request.timeoutMs ?? 0 });
    case 'cancelled':
      throw new WorkflowError('CANCELLED', 'shell command cancelled: the run was stopped');
    case 'signal':
      throw new WorkflowError('SHELL_FAILED', `shell command could not run: terminated by ${end.signal}`);
    case 'launch':
      throw new WorkflowError('SHELL_FAILED', `shell command could not run: ${end.message}`);
    case 'record':
      throw isWorkflowError(end.error) ? end.error : new WorkflowError('SHELL_FAILED', messageOf(end.error));
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
    const value = await runShell(request, {
      cwd: place.cwd,
      signal: place.signal,
      maxValueBytes: place.maxValueBytes,
      onStart: (group) => recordGroupStarted(place.runDir, place.key, group),
      onEnd: (group, stopped) => {
        if (stopped) recordGroupEnded(place.runDir, place.key, group.pgid);
      },
      onPipesHeld: (group) =>
        appendRunEvent(place.runDir, {
          at: new Date().toISOString(),
          type: 'warning',
          message: `shell ${place.key} ended, but a process that had left its process group ${group.pgid} (setsid, a daemon) still held its output; its pipes were closed (a writer gets EPIPE). That process was not signalled: nothing proves it is the command's. End it yourself if it is`,
          details: { kind: 'shell-orphan', action: 'pipes-held', key: place.key, pgid: group.pgid },
        }),
    });
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
