/** The process's I/O and signals as a `CliIo`: for the `wfcli` executable and a bundle's launcher. */
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

/**
 * A reader that went away (`wfcli list | head -1`) closes the pipe: writes
 * then fail with EPIPE, which Node reports as an 'error' event that would
 * crash the process with a stack trace. Like a Unix tool, the command ends
 * quietly instead: output to a closed stream is dropped and the command
 * finishes with its own exit code. Any other write error is reported once.
 */
function guarded(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (closed) return;
    closed = true;
    if (error.code === 'EPIPE') return;
    process.exitCode = 1;
    if (stream !== process.stderr) process.stderr.write(`INTERNAL_ERROR: cannot write output: ${error.message}\n`);
  });
  return (text) => {
    if (!closed && !stream.destroyed) stream.write(text);
  };
}

export const processIo: CliIo = {
  cwd: process.cwd(),
  stdout: guarded(process.stdout),
  stderr: guarded(process.stderr),
  stderrIsTTY: process.stderr.isTTY === true,
  // A pseudo-terminal without a size reports 0 columns: keep the default width then.
  ...(process.stderr.columns > 0 ? { columns: process.stderr.columns } : {}),
  onInterrupt,
};
