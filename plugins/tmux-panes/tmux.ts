/**
 * The tmux commands the plugin runs: argument arrays through nano-spawn,
 * never a shell string. Without a socket it talks to the server of the
 * environment's `TMUX` (the one the host's own pane belongs to); with one
 * (`-S <path>`) to that server, which is how an attempt action reaches the
 * server a pane was opened on.
 */
import spawn, { SubprocessError } from 'nano-spawn';
import { messageOf } from '../../kernel/index.js';

export interface NewWindow {
  /** Where it opens: a tmux target (`$1:` opens a window at the session's next free index). */
  readonly target?: string;
  readonly name: string;
  readonly cwd: string;
  readonly command: readonly string[];
  /** Keep the window in the background (an agent starting) or switch to it (a viewer the user asked for). */
  readonly detached: boolean;
  /** Keep the pane after its program exits (a failed start stays readable until it is killed). */
  readonly keepOnExit?: boolean;
}

export interface OpenedPane {
  readonly pane: string;
  readonly window: string;
  readonly pid: number;
}

export class TmuxError extends Error {}

export class Tmux {
  readonly #prefix: readonly string[];
  readonly #env: NodeJS.ProcessEnv | undefined;

  /** `socket`: the server's socket path; `env`: the environment tmux itself runs with (its `TMUX`). */
  constructor(options: { readonly socket?: string; readonly env?: NodeJS.ProcessEnv } = {}) {
    this.#prefix = options.socket === undefined ? [] : ['-S', options.socket];
    this.#env = options.env;
  }

  /** Runs one tmux command; resolves to its stdout without the final newline. */
  async run(args: readonly string[]): Promise<string> {
    try {
      const result = await spawn('tmux', [...this.#prefix, ...args], { stdin: 'ignore', ...(this.#env === undefined ? {} : { env: this.#env as Record<string, string> }) });
      return result.stdout;
    } catch (error) {
      const detail = error instanceof SubprocessError ? error.stderr.trim() || `exit ${error.exitCode ?? error.signalName ?? '?'}` : messageOf(error);
      throw new TmuxError(`tmux ${args[0] ?? ''} failed: ${detail}`);
    }
  }

  /** `display-message -p` of a format, for a target or the current pane. */
  display(format: string, target?: string): Promise<string> {
    return this.run(['display-message', '-p', ...(target === undefined ? [] : ['-t', target]), format]);
  }

  async newWindow(window: NewWindow): Promise<OpenedPane> {
    const out = await this.run([
      'new-window',
      ...(window.detached ? ['-d'] : []),
      '-P',
      '-F',
      '#{pane_id} #{window_id} #{pane_pid}',
      ...(window.target === undefined ? [] : ['-t', window.target]),
      '-n',
      window.name,
      '-c',
      window.cwd,
      '--',
      ...window.command,
    ]);
    const [pane, id, pid] = out.trim().split(' ');
    if (pane === undefined || id === undefined || pid === undefined || !/^\d+$/.test(pid)) throw new TmuxError(`tmux new-window printed an unexpected line: ${out}`);
    // Set right after: a program that ends within these milliseconds just leaves no screen to quote.
    if (window.keepOnExit === true) await this.run(['set-option', '-w', '-t', id, 'remain-on-exit', 'on']).catch(() => undefined);
    return { pane, window: id, pid: Number(pid) };
  }

  /** A pane's state: gone (undefined), dead (its program exited, kept by remain-on-exit) or alive. */
  async paneState(pane: string, tagOption?: string): Promise<{ readonly dead: boolean; readonly tag: string } | undefined> {
    try {
      // tmux 3.3 answers a target that no longer exists with empty formats and exit 0: the ID must come back.
      const out = await this.display(`#{pane_id}|#{pane_dead}|${tagOption === undefined ? '' : `#{${tagOption}}`}`, pane);
      const [id, dead, tag = ''] = out.split('|');
      return id === pane ? { dead: dead === '1', tag } : undefined;
    } catch {
      return undefined;
    }
  }

  /** The visible text of a pane. */
  capture(pane: string): Promise<string> {
    return this.run(['capture-pane', '-p', '-t', pane]);
  }

  /** Brings a pane to the front: its window becomes the current one of its session, the pane the active one. */
  async focus(pane: string): Promise<void> {
    await this.run(['select-window', '-t', pane]);
    await this.run(['select-pane', '-t', pane]);
  }

  /** Kills a pane; a pane already gone is not an error. */
  async killPane(pane: string): Promise<void> {
    try {
      await this.run(['kill-pane', '-t', pane]);
    } catch {
      // Gone already.
    }
  }
}

/**
 * Whether this process runs inside a tmux pane whose server answers: `TMUX`
 * is set and `tmux display-message -p` succeeds. Resolves to the server's
 * socket path and the session of the host's pane, or undefined.
 */
export async function tmuxContext(env: NodeJS.ProcessEnv = process.env): Promise<{ readonly socket: string; readonly session: string } | undefined> {
  if (env['TMUX'] === undefined || env['TMUX'] === '') return undefined;
  try {
    const tmux = new Tmux({ env });
    const pane = env['TMUX_PANE'];
    const out = await tmux.display('#{socket_path}|#{session_id}', pane === undefined || pane === '' ? undefined : pane);
    const [socket, session] = out.split('|');
    return socket === undefined || socket === '' || session === undefined || session === '' ? undefined : { socket, session };
  } catch {
    return undefined;
  }
}
