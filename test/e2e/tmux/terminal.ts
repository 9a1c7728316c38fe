/**
 * A real terminal for end-to-end tests: one command in a detached tmux
 * session on a private tmux server (its own socket), driven with keys and
 * read back with `capture-pane`. Waits poll the screen with a bound; they
 * never sleep a fixed time.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';

export interface TerminalOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly command: readonly string[];
  readonly columns?: number;
  readonly rows?: number;
  /** Keep tmux's own `TMUX` and `TMUX_PANE` of the pane (a program that opens windows of its own server). */
  readonly insideTmux?: boolean;
}

const quote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

/** How many keystrokes and screens a timed-out wait reports, the newest last. */
const HISTORY = 12;

export class TmuxTerminal {
  readonly #socket = `wf-e2e-${randomBytes(4).toString('hex')}`;
  /** The last keystrokes and distinct screens: a timed-out wait shows what led to its screen. */
  readonly #history: string[] = [];
  readonly #started = Date.now();

  constructor(options: TerminalOptions) {
    const env = Object.entries({ TERM: 'tmux-256color', ...options.env }).flatMap(([name, value]) => (value === undefined ? [] : [`${name}=${quote(value)}`]));
    // `env -i`: the program sees exactly `env` (plus TERM), never the test process's environment.
    // The pane's shell expands tmux's variables before `env -i` clears the rest.
    const own = options.insideTmux === true ? ['TMUX="$TMUX"', 'TMUX_PANE="$TMUX_PANE"'] : [];
    const command = ['env', '-i', ...own, ...env, ...options.command.map(quote)].join(' ');
    this.#tmux(['new-session', '-d', '-s', 'main', '-x', String(options.columns ?? 120), '-y', String(options.rows ?? 50), '-c', options.cwd, command]);
    // Keep the pane after the program exits, so a crash stays readable on the screen.
    this.#tmux(['set-option', '-t', 'main', 'remain-on-exit', 'on']);
  }

  /** Any tmux command on this terminal's server (windows a program opened, their screens). */
  tmux(...args: readonly string[]): string {
    return this.#tmux(args);
  }

  #tmux(args: readonly string[]): string {
    return execFileSync('tmux', ['-L', this.#socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }

  /** The visible screen as plain text. */
  screen(): string {
    const screen = this.#tmux(['capture-pane', '-p', '-t', 'main']);
    if (!this.#history.at(-1)?.endsWith(`\n${screen}`)) this.#remember(`screen\n${screen}`);
    return screen;
  }

  #remember(entry: string): void {
    this.#history.push(`+${Date.now() - this.#started} ms ${entry}`);
    if (this.#history.length > HISTORY) this.#history.shift();
  }

  /** Named keys (`Enter`, `Down`, `Escape`) as tmux spells them. */
  keys(...keys: readonly string[]): void {
    this.#remember(`keys ${keys.join(' ')}`);
    this.#tmux(['send-keys', '-t', 'main', ...keys]);
  }

  /** Literal text, typed as is. */
  type(text: string): void {
    this.#remember(`type ${JSON.stringify(text)}`);
    this.#tmux(['send-keys', '-t', 'main', '-l', text]);
  }

  /** Resolves with the screen once `check` accepts it; fails with the last screen after `timeoutMs`. */
  async waitFor(check: (screen: string) => boolean, what: string, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (check(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen shows:\n${screen}\nwhat led to it, oldest first:\n${this.#history.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * Moves a list's selection down until the selected line (the one starting
   * with `marker`) shows `text`. Each step waits for the selection to move
   * first, so no key lands on a screen that is still being drawn.
   */
  async select(marker: string, text: string): Promise<void> {
    const selected = (screen: string): string | undefined => screen.split('\n').find((line) => line.trimStart().startsWith(`${marker} `));
    let current = selected(await this.waitFor((screen) => selected(screen) !== undefined, `a list selected with "${marker}"`));
    while (!current?.includes(text)) {
      const before = current;
      this.keys('Down');
      current = selected(await this.waitFor((screen) => selected(screen) !== before, `the selection to move below ${JSON.stringify(before)} towards "${text}"`, 30_000));
    }
  }

  /** Waits until the screen shows `text`. */
  waitForText(text: string, timeoutMs?: number): Promise<string> {
    return this.waitFor((screen) => screen.includes(text), JSON.stringify(text), timeoutMs);
  }

  /**
   * Ends the program and this terminal's private tmux server, removes its
   * socket, and waits until every process of its panes (and their children)
   * has exited: a program that still writes as it exits on SIGHUP must be
   * gone before the test removes its files. Past `timeoutMs` the stragglers
   * are killed.
   */
  async close(timeoutMs = 20_000): Promise<void> {
    let socket: string | undefined;
    let processes: number[] = [];
    try {
      socket = this.#tmux(['display-message', '-p', '#{socket_path}']).trim();
      const panes = this.#tmux(['list-panes', '-a', '-F', '#{pane_pid}']).split('\n').filter(Boolean).map(Number);
      processes = withDescendants(panes);
      this.#tmux(['kill-server']);
    } catch {
      // Already gone.
    }
    if (socket) rmSync(socket, { force: true });
    const deadline = Date.now() + timeoutMs;
    for (let alive = processes.filter(running); alive.length > 0; alive = alive.filter(running)) {
      if (Date.now() > deadline) {
        for (const pid of alive) signal(pid, 'SIGKILL');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** `pids` and every process below them (Linux: the parent field of /proc/<pid>/stat). */
function withDescendants(pids: readonly number[]): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // exited while we looked
    }
  }
  const all = new Set<number>();
  const visit = (pid: number): void => {
    if (all.has(pid)) return;
    all.add(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  pids.forEach(visit);
  return [...all];
}

function running(pid: number): boolean {
  try {
    // A zombie has exited; only its parent's wait is missing.
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}
