/** The process's I/O and signals as a `CliIo`: for the `wfcli` executable and a bundle's launcher. */
import { writeSync } from 'node:fs';
import { errnoCode } from '../kernel/errors.js';
import type { CliIo } from './command.js';

/** Ctrl-C or SIGTERM calls the command's handler once; a second one ends the process at once. */
function onInterrupt(handler: () => void): () => void {
  let received = false;
  const listener = (signal: NodeJS.Signals): void => {
    if (received) process.exit(signal === 'SIGINT' ? 130 : 143);
    received = true;
    handler();
  };
  process.on('SIGINT', listener);
  process.on('SIGTERM', listener);
  return () => {
    process.off('SIGINT', listener);
    process.off('SIGTERM', listener);
  };
}

/** What a descriptor writer needs of Node's stream for it (process.stdout or stderr). */
export interface FallbackStream {
  readonly destroyed: boolean;
  write(data: Uint8Array): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

export interface DescriptorWriterOptions {
  /** fs.writeSync's shape: bytes written, or a thrown errno error. */
  readonly write?: (fd: number, data: Uint8Array, offset: number, length: number) => number;
  /** The stream for the descriptor, made on first need. */
  readonly stream: () => FallbackStream;
  /** Reports a write error other than a closed descriptor (stdout's go to stderr). */
  readonly report: (text: string) => void;
  /** Called once on such an error: the command must then fail. */
  readonly fail: () => void;
}

/**
 * The writer of a descriptor, stdout or stderr. It writes the descriptor
 * itself, in order, and makes Node's stream for it only when it must: making
 * process.stdout or stderr loads Node's stream modules, and `net` for a pipe
 * (about 16 M instructions, more than `wfcli status` takes for its own
 * work). It must when the descriptor is non-blocking (a parent may have made
 * it so) and full (EAGAIN): that write's rest and every later one go through
 * the stream, which waits until the reader takes them.
 *
 * A reader that went away (`wfcli list | head -1`) closes the pipe: writes
 * then fail with EPIPE. Like a Unix tool, the command ends quietly instead of
 * with a stack trace: output to a closed pipe (or a closed descriptor,
 * `>&-`) is dropped and the command finishes with its own exit code. Any
 * other write error (ENOSPC ...) is reported once and fails the command.
 */
export function descriptorWriter(fd: number, options: DescriptorWriterOptions): (text: string) => void {
  const write = options.write ?? writeSync;
  let closed = false;
  let stream: FallbackStream | undefined;
  const failed = (error: unknown): void => {
    if (closed) return;
    closed = true;
    if (errnoCode(error) === 'EPIPE' || errnoCode(error) === 'EBADF') return;
    options.fail();
    options.report(`INTERNAL_ERROR: cannot write output: ${error instanceof Error ? error.message : String(error)}\n`);
  };
  const toStream = (data: Uint8Array): void => {
    if (stream === undefined) {
      stream = options.stream();
      stream.on('error', failed);
    }
    if (!stream.destroyed) stream.write(data);
  };
  return (text) => {
    if (closed) return;
    const data = Buffer.from(text, 'utf8');
    if (stream !== undefined) return toStream(data);
    let written = 0;
    try {
      while (written < data.byteLength) written += write(fd, data, written, data.byteLength - written);
    } catch (error) {
      if (errnoCode(error) === 'EAGAIN') toStream(data.subarray(written));
      else failed(error);
    }
  };
}

/** The command fails whatever it returns: set now, and again at exit, after wfcli.ts set its own. */
function failAtExit(): void {
  process.exitCode = 1;
  process.once('exit', () => {
    process.exitCode = 1;
  });
}

/** The streams the writers fell back to, whose queued output must reach the descriptor before the process ends. */
const fallbacks: NodeJS.WriteStream[] = [];

function fallback(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  fallbacks.push(stream);
  return stream;
}

/** What `drained` needs of a Node stream. */
export interface QueueingStream {
  readonly destroyed: boolean;
  readonly writableLength: number;
  once(event: 'drain' | 'error' | 'close', listener: () => void): unknown;
}

/** Resolves once none of the streams holds queued output: each has drained, failed or closed. */
export async function drained(streams: readonly QueueingStream[]): Promise<void> {
  for (const stream of streams) {
    if (stream.destroyed || stream.writableLength === 0) continue;
    await new Promise<void>((resolve) => {
      for (const event of ['drain', 'error', 'close'] as const) stream.once(event, resolve);
    });
  }
}

/**
 * Resolves once the output written so far has reached its descriptor: at
 * once, unless a full non-blocking descriptor made a writer queue the rest
 * in Node's stream.
 */
export function outputFlushed(): Promise<void> {
  return drained(fallbacks);
}

const stderr = descriptorWriter(2, { stream: () => fallback(process.stderr), report: () => undefined, fail: failAtExit });

export const processIo: CliIo = {
  cwd: process.cwd(),
  stdout: descriptorWriter(1, { stream: () => fallback(process.stdout), report: stderr, fail: failAtExit }),
  stderr,
  // Read only when a command draws progress (`run`, `resume`, `retry`): they need stderr's stream.
  get stderrIsTTY(): boolean {
    return process.stderr.isTTY === true;
  },
  // A pseudo-terminal without a size reports 0 columns: keep the default width then.
  get columns(): number | undefined {
    return process.stderr.columns > 0 ? process.stderr.columns : undefined;
  },
  onInterrupt,
};
