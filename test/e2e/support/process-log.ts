/**
 * The last `pi` and `wfcli` processes a test started through pi-cli.ts, running or ended, with the tails of
 * their output: a failing test prints them (failure-report.ts), so a failure in CI can be understood from
 * CI's printout alone.
 */
const KEPT = 6;
const TAIL = 2000;

interface Entry {
  readonly what: string;
  readonly started: number;
  /** The output so far. */
  readonly output: () => { readonly stdout: string; readonly stderr: string };
  ended?: string;
}

const entries: Entry[] = [];

/** Notes a started process; call the returned function with its exit once it ended. */
export function logProcess(what: string, output: Entry['output']): (exit: string) => void {
  const entry: Entry = { what, started: Date.now(), output };
  entries.push(entry);
  if (entries.length > KEPT) entries.shift();
  return (exit) => {
    entry.ended = `${exit} after ${Date.now() - entry.started} ms`;
  };
}

export function clearProcessLog(): void {
  entries.length = 0;
}

const tail = (text: string): string => (text.length > TAIL ? `…${text.slice(-TAIL)}` : text);

/** The log, oldest first; empty when the test started no process. */
export function describeProcesses(): string {
  return entries
    .map((entry) => {
      const { stdout, stderr } = entry.output();
      return `${entry.what}: ${entry.ended ?? `still running after ${Date.now() - entry.started} ms`}\n  stdout: ${tail(stdout) || '(none)'}\n  stderr: ${tail(stderr) || '(none)'}`;
    })
    .join('\n');
}
