/**
 * One shell command as a process group of its own, read as bytes with a
 * running count (docs/runs.md "Shell processes"):
 *
 * - The command runs under `/bin/sh -c` in a new session (`detached`), so
 *   its group ID is its PID and the whole group can be signalled. It starts
 *   only once the caller recorded the group (`onStart`, see GATE).
 * - Output is kept as Buffers up to `maxBytes` (stdout and stderr
 *   together). Past it the buffers are dropped, the pipes closed and the
 *   group stopped: the host never holds more than the boundary per shell.
 * - When the shell exits, the output is taken once its pipes close, or
 *   after a short drain window if processes it left behind still hold them;
 *   then whatever remains of the group is stopped. No process of the group
 *   outlives the call.
 * - A time-out or a cancellation stops the group (TERM, KILL after the
 *   grace) and ends the call without waiting for pipes that processes
 *   outside the group may still hold.
 *
 * node:child_process directly (not nano-spawn): nano-spawn neither starts
 * the command in a group of its own nor lets the caller bound what it
 * buffers (it keeps each stream, and both interleaved, as growing strings).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { bootId, processStartTime } from '../../process-identity.js';
import { forgetGroup, GROUP_GRACE_MS, GROUPS_SUPPORTED, groupAlive, signalGroup, stopGroup, trackGroup } from '../../process-groups.js';

/** How long the host waits for the pipes after the shell exited before it stops what holds them. */
export const DRAIN_MS = 200;
/** How long the host waits for more output once the group is gone (only processes that left the group can still hold the pipes). */
const CLOSE_MS = 100;
/**
 * The longest the host reads pipes a process outside the group holds once the
 * group is gone: one that keeps writing is never quiet for CLOSE_MS, so it
 * would hold the call for ever (issue 35). A time-out cuts it shorter.
 */
const HELD_PIPES_MS = GROUP_GRACE_MS;

/** What a later process needs to find the group again. */
export interface ShellGroup {
  readonly pgid: number;
  /** The leader's start time (Linux, process-identity.ts); undefined elsewhere. */
  readonly startTime: string | undefined;
  readonly bootId: string | undefined;
}

export interface ShellProcessOptions {
  readonly command: string;
  readonly cwd: string;
  /** Overrides merged over the host's environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly signal: AbortSignal;
  /** Bytes of stdout and stderr together the host keeps. */
  readonly maxBytes: number;
  /** Called synchronously once the group exists, before any output is read; a throw stops the group and fails the call. */
  readonly onStart: (group: ShellGroup) => void;
  /** The call ended (its shell exited, timed out or was cancelled) while a process outside the group still held its output pipes, which were then closed. */
  readonly onPipesHeld?: (group: ShellGroup) => void;
  /** Called once no process of the group runs any more (or the host gave up waiting for it). */
  readonly onEnd?: (group: ShellGroup, stopped: boolean) => void;
}

export type ShellEnd =
  | { readonly kind: 'exit'; readonly exitCode: number; readonly stdout: Buffer; readonly stderr: Buffer }
  | { readonly kind: 'signal'; readonly signal: string }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'overflow'; readonly bytes: number }
  | { readonly kind: 'launch'; readonly message: string }
  | { readonly kind: 'record'; readonly error: unknown };

type ShellChild = ChildProcessByStdio<Writable, Readable, Readable>;

/**
 * Runs before the command, on the same line (line numbers stay the user's):
 * the shell waits for one line on stdin, which the host writes once the
 * group is recorded, then gives the command /dev/null as stdin. A host that
 * died before that (or could not record the group) leaves it EOF, and the
 * shell exits without running the command. So no command runs that a later
 * process could not find.
 */
const GATE = 'read -r _ || exit 125; exec 0</dev/null; ';

/** Bytes of one stream, kept until the shared budget runs out. */
class Collected {
  chunks: Buffer[] = [];
  ended = false;
  take(): Buffer {
    const buffer = Buffer.concat(this.chunks);
    this.chunks = [];
    return buffer;
  }
}

export function runShellProcess(options: ShellProcessOptions): Promise<ShellEnd> {
  return new Promise((resolve) => {
    if (options.signal.aborted) return resolve({ kind: 'cancelled' });
    let child: ShellChild;
    try {
      child = spawn(GROUPS_SUPPORTED ? `${GATE}${options.command}` : options.command, {
        shell: true,
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: GROUPS_SUPPORTED,
        windowsHide: true,
      });
    } catch (error) {
      return resolve({ kind: 'launch', message: (error as Error).message });
    }
    new ShellRun(child, options, resolve).start();
  });
}

class ShellRun {
  readonly #child: ShellChild;
  readonly #options: ShellProcessOptions;
  readonly #resolve: (end: ShellEnd) => void;
  readonly #out = { stdout: new Collected(), stderr: new Collected() };
  #bytes = 0;
  #group: ShellGroup | undefined;
  #exit: { code: number | null; signal: string | null } | undefined;
  /** Why the host ends the call early: the first reason wins. */
  #cut: ShellEnd | undefined;
  #stopping: Promise<boolean> | undefined;
  #drain: NodeJS.Timeout | undefined;
  #timer: NodeJS.Timeout | undefined;
  #done = false;
  /** The time-out passed after the shell exited: the output is taken as it is, at once. */
  #timedOutAfterExit = false;
  #restStopping = false;
  readonly #exited: Promise<void>;
  #onExited!: () => void;
  /** Both pipes closed: no process holds them any more. */
  readonly #pipesClosed: Promise<void>;
  #onPipesClosed!: () => void;

  constructor(child: ShellChild, options: ShellProcessOptions, resolve: (end: ShellEnd) => void) {
    this.#child = child;
    this.#options = options;
    this.#resolve = resolve;
    this.#exited = new Promise((done) => (this.#onExited = done));
    this.#pipesClosed = new Promise((done) => (this.#onPipesClosed = done));
  }

  start(): void {
    const child = this.#child;
    const gate = child.stdin;
    gate.on('error', () => undefined);
    // A launch failure (a missing cwd, no shell) has no PID; it reports through `error`.
    child.once('error', (error) => {
      if (this.#group === undefined) this.#finish({ kind: 'launch', message: error.message });
    });
    child.once('exit', (code, signal) => {
      this.#exit = { code, signal };
      this.#onExited();
      this.#afterExit();
    });
    const pid = child.pid;
    if (pid === undefined) return;
    const group: ShellGroup = { pgid: pid, startTime: processStartTime(pid), bootId: bootId() };
    this.#group = group;
    if (GROUPS_SUPPORTED) trackGroup(pid);
    // Without the gate (Windows) stdin is only closed.
    if (!GROUPS_SUPPORTED) gate.end();
    try {
      this.#options.onStart(group);
    } catch (error) {
      // The gate stays shut: the command does not run. The shell is killed at once.
      gate.destroy();
      signalGroup(pid, 'SIGKILL');
      this.#end({ kind: 'record', error });
      return;
    }
    if (GROUPS_SUPPORTED) gate.end('\n');
    for (const name of ['stdout', 'stderr'] as const) {
      const stream = child[name];
      const collected = this.#out[name];
      stream.on('data', (chunk: Buffer) => this.#read(collected, chunk));
      stream.once('close', () => {
        collected.ended = true;
        if (this.#out.stdout.ended && this.#out.stderr.ended) this.#onPipesClosed();
        this.#afterExit();
      });
      stream.on('error', () => undefined);
    }
    if (this.#options.timeoutMs !== undefined) this.#timer = setTimeout(() => this.#onTimeout(), this.#options.timeoutMs);
    this.#options.signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  #read(collected: Collected, chunk: Buffer): void {
    if (this.#cut !== undefined) return;
    this.#bytes += chunk.byteLength;
    if (this.#bytes > this.#options.maxBytes) {
      // Nothing more is kept: the buffers go, the pipes close (a writer gets EPIPE), the group is stopped.
      this.#out.stdout.chunks = [];
      this.#out.stderr.chunks = [];
      this.#end({ kind: 'overflow', bytes: this.#bytes });
      return;
    }
    collected.chunks.push(chunk);
  }

  #onTimeout = (): void => {
    // A shell that already exited keeps its result; the time-out only cuts the drain short.
    if (this.#exit !== undefined && this.#cut === undefined) {
      this.#timedOutAfterExit = true;
      return this.#stopRest();
    }
    this.#end({ kind: 'timeout' });
  };

  #onAbort = (): void => this.#end({ kind: 'cancelled' });

  /**
   * Ends the call early: stop the group, then resolve without waiting for
   * the pipes. Past the output boundary they close at once (a writer gets
   * EPIPE); otherwise once the group is gone, so the host can tell whether a
   * process outside the group still holds them (what is read meanwhile is
   * dropped: the call is cut).
   */
  #end(reason: ShellEnd): void {
    if (this.#cut !== undefined || this.#done) return;
    this.#cut = reason;
    if (reason.kind === 'overflow') this.#closePipes();
    void this.#stop().then(async () => {
      // The leader is dead or stuck; its exit event lets the host reap it, and the pipes close with the group, but neither is worth more than a moment.
      await Promise.race([Promise.all([this.#exited, this.#pipesClosed]), sleep(CLOSE_MS)]);
      // Past the boundary the pipes were closed at once; a group that never ran (its record failed) was never read.
      const held = reason.kind !== 'overflow' && reason.kind !== 'record' && !(this.#out.stdout.ended && this.#out.stderr.ended);
      this.#closePipes();
      if (held) this.#pipesHeld();
      this.#finish(reason);
    });
  }

  #closePipes(): void {
    this.#child.stdout.destroy();
    this.#child.stderr.destroy();
  }

  #pipesHeld(): void {
    const group = this.#group;
    if (group === undefined) return;
    try {
      this.#options.onPipesHeld?.(group);
    } catch {
      // best-effort, as the run log it writes to
    }
  }

  /** Called on exit and on each pipe's close: the normal end, once all three happened. */
  #afterExit(): void {
    if (this.#exit === undefined || this.#cut !== undefined || this.#done) return;
    const { stdout, stderr } = this.#out;
    if (stdout.ended && stderr.ended) {
      clearTimeout(this.#drain);
      // Processes the shell left behind that no longer hold the pipes end with the call too.
      void this.#stop().then(() => this.#finishExit());
      return;
    }
    this.#drain ??= setTimeout(() => this.#stopRest(), DRAIN_MS);
  }

  /** The shell exited, but processes it left hold the pipes: stop them, then take the output as it is. */
  #stopRest(): void {
    if (this.#cut !== undefined || this.#done || this.#restStopping) return;
    this.#restStopping = true;
    clearTimeout(this.#drain);
    void this.#stop().then(async () => {
      const { stdout, stderr } = this.#out;
      // What the group wrote before it ended is still read: only a process that left the group can hold the pipes
      // now, and the host waits for it no longer than CLOSE_MS without data (checked after the poll phase, so a
      // busy event loop cannot make output already in the pipes look late), HELD_PIPES_MS in all, and not at all
      // once the time-out passed.
      const began = performance.now();
      let quietSince = began;
      let seen = this.#bytes;
      while (!(stdout.ended && stderr.ended) && this.#cut === undefined && !this.#timedOutAfterExit) {
        await sleep(10);
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.#bytes !== seen) [seen, quietSince] = [this.#bytes, performance.now()];
        else if (performance.now() - quietSince >= CLOSE_MS) break;
        if (performance.now() - began >= HELD_PIPES_MS) break;
      }
      if (this.#cut !== undefined) return;
      const held = !(stdout.ended && stderr.ended);
      this.#closePipes();
      if (held) this.#pipesHeld();
      this.#finishExit();
    });
  }

  /** Stops the group once; resolves when it is gone. */
  #stop(): Promise<boolean> {
    this.#stopping ??= (async () => {
      const group = this.#group;
      if (group === undefined) return true;
      let stopped: boolean;
      if (!GROUPS_SUPPORTED) {
        if (this.#exit === undefined) this.#child.kill();
        stopped = true;
      } else {
        stopped = groupAlive(group.pgid) ? await stopGroup(group.pgid, GROUP_GRACE_MS) : true;
        if (stopped) forgetGroup(group.pgid);
      }
      try {
        this.#options.onEnd?.(group, stopped);
      } catch {
        // best-effort: a group whose end is not recorded is only checked again by a later resume
      }
      return stopped;
    })();
    return this.#stopping;
  }

  #finishExit(): void {
    if (this.#cut !== undefined) return;
    const exit = this.#exit!;
    if (exit.code === null) return this.#finish({ kind: 'signal', signal: exit.signal ?? 'a signal' });
    this.#finish({ kind: 'exit', exitCode: exit.code, stdout: this.#out.stdout.take(), stderr: this.#out.stderr.take() });
  }

  #finish(end: ShellEnd): void {
    if (this.#done) return;
    this.#done = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#drain);
    this.#options.signal.removeEventListener('abort', this.#onAbort);
    this.#resolve(end);
  }
}
