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

export const processIo: CliIo = {
  cwd: process.cwd(),
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  stderrIsTTY: process.stderr.isTTY === true,
  // A pseudo-terminal without a size reports 0 columns: keep the default width then.
  ...(process.stderr.columns > 0 ? { columns: process.stderr.columns } : {}),
  onInterrupt,
};
