/**
 * The worker's attempt worktrees, reused: `git worktree add` (a new admin
 * folder, every file written) and its removal cost the most of a remote
 * attempt's overhead, so a worktree goes back to a small pool when its
 * attempt ends and the next attempt only checks out its base commit there.
 *
 * An agent is hostile ground, so a worktree is cleaned before it is reused,
 * off the attempt's path: its `.git` file must still name the admin folder
 * it was created with (a rewritten one could point git at another
 * repository), its index is deleted (assume-unchanged or skip-worktree bits
 * could hide a modified file from git), with its per-worktree config and
 * sparse-checkout, then `reset --hard HEAD` rewrites every tracked file and
 * `clean -ffdx` removes every untracked and ignored file, nested
 * repositories included. git removes links, never follows them. A worktree
 * that fails any step is removed and a new one is added instead.
 *
 * Not covered, as with a new worktree: a process the agent left running can
 * still write wherever the worker's user can.
 */
import { lstatSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { WorkflowError } from '../../kernel/index.js';
import type { AttemptRequest } from './attempt.js';
import { git } from './git.js';
import { ensureCommit, type AttemptWorktree } from './worker-git.js';

interface Slot {
  readonly dir: string;
  /** The `.git` file's content when git created it. */
  readonly gitFile: string;
  /** Its admin folder in the clone (`.git/worktrees/<name>`). */
  readonly admin: string;
}

export interface WorktreePoolOptions {
  /** The worker's clone and its remote (worker-git.ts). */
  readonly repo: string;
  readonly remote: string;
  /** Where the worktrees go (the worker's own folder). */
  readonly root: string;
  /** Worktrees kept at most, busy, being cleaned or idle. */
  readonly max: number;
}

export class WorktreePool {
  readonly #options: WorktreePoolOptions;
  readonly #idle: Slot[] = [];
  readonly #cleaning = new Set<Promise<void>>();
  #count = 0;
  #created = 0;
  #closed = false;
  #freed: (() => void)[] = [];

  constructor(options: WorktreePoolOptions) {
    this.#options = options;
  }

  /** The worker's own folder the worktrees are in (a continued session's file goes there too, worker-continuation.ts). */
  get root(): string {
    return this.#options.root;
  }

  /** A clean worktree at the attempt's base commit; AGENT_FAILED when the clone cannot get the commit. */
  async acquire(request: Pick<AttemptRequest, 'repository'>): Promise<AttemptWorktree> {
    const { baseCommit, subdirectory } = request.repository;
    let slot: Slot | undefined;
    while (slot === undefined) {
      const idle = await this.#take();
      if (idle === undefined) {
        slot = await this.#add(baseCommit).catch((error: unknown) => {
          this.#count -= 1;
          this.#wake();
          throw error;
        });
      } else if (await this.#checkout(idle, baseCommit)) {
        slot = idle;
      }
    }
    const taken = slot;
    const cwd = path.resolve(taken.dir, subdirectory);
    if (cwd !== taken.dir && !cwd.startsWith(`${taken.dir}${path.sep}`)) {
      this.#release(taken);
      throw new WorkflowError('AGENT_FAILED', `the attempt's subdirectory ${JSON.stringify(subdirectory)} leaves its worktree`);
    }
    mkdirSync(cwd, { recursive: true });
    let released = false;
    return {
      cwd,
      dir: taken.dir,
      verify: () => void this.#verified(taken),
      release: () => {
        if (released) return;
        released = true;
        this.#release(taken);
      },
    };
  }

  /**
   * Moves an idle worktree to the commit: true when done; false when the
   * worktree failed (it is removed: the caller takes another). A commit the
   * clone cannot get fails the attempt, and the worktree goes back.
   */
  async #checkout(slot: Slot, commit: string): Promise<boolean> {
    const checkout = async (): Promise<void> => void (await git(this.#verified(slot), ['checkout', '--quiet', '--force', '--detach', commit]));
    // Cleaned at this very commit (a run's agents mostly start from one base): the checkout would change nothing.
    if (this.#detachedAt(slot, commit)) return true;
    try {
      await checkout();
      return true;
    } catch {
      // Most often a base commit this clone has not fetched yet.
    }
    try {
      await ensureCommit(this.#options.repo, this.#options.remote, commit);
    } catch (error) {
      this.#release(slot);
      throw error;
    }
    try {
      await checkout();
      return true;
    } catch {
      await this.#discard(slot);
      return false;
    }
  }

  /** Waits for the cleaning under way and removes every worktree; released ones are removed too. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#cleaning]);
    const idle = this.#idle.splice(0);
    await Promise.allSettled(idle.map((slot) => this.#discard(slot)));
  }

  /** An idle worktree, or undefined when a new one may be added (then counted); waits while the pool is full. */
  async #take(): Promise<Slot | undefined> {
    for (;;) {
      const slot = this.#idle.pop();
      if (slot !== undefined) return slot;
      if (this.#count < this.#options.max) {
        this.#count += 1;
        return undefined;
      }
      await new Promise<void>((resolve) => this.#freed.push(resolve));
    }
  }

  #wake(): void {
    for (const resolve of this.#freed.splice(0)) resolve();
  }

  async #add(commit: string): Promise<Slot> {
    const { repo, root } = this.#options;
    mkdirSync(root, { recursive: true, mode: 0o700 });
    this.#created += 1;
    const dir = path.join(root, `worktree-${this.#created}`);
    // A leftover of an earlier worker with this folder is not ours to trust.
    rmSync(dir, { recursive: true, force: true });
    await this.#withCommit(commit, () => git(repo, ['worktree', 'add', '--quiet', '--detach', dir, commit]));
    const gitFile = readFileSync(path.join(dir, '.git'), 'utf8');
    const admin = /^gitdir: (.+)\n?$/.exec(gitFile)?.[1];
    if (admin === undefined || !path.isAbsolute(admin)) throw new WorkflowError('AGENT_FAILED', `git wrote an unexpected .git file in ${dir}`);
    return { dir, gitFile, admin };
  }

  /** Runs a git step that needs the commit; when it fails, fetches the commit (or fails naming it) and runs it again. */
  async #withCommit(commit: string, step: () => Promise<unknown>): Promise<void> {
    try {
      await step();
    } catch {
      await ensureCommit(this.#options.repo, this.#options.remote, commit);
      await step();
    }
  }

  /** The slot's folder once its links to git are the ones git made; throws otherwise. */
  #verified(slot: Slot): string {
    const dir = lstatSync(slot.dir);
    const file = lstatSync(path.join(slot.dir, '.git'));
    const admin = lstatSync(slot.admin);
    if (!dir.isDirectory() || !file.isFile() || !admin.isDirectory() || readFileSync(path.join(slot.dir, '.git'), 'utf8') !== slot.gitFile) {
      throw new WorkflowError('AGENT_FAILED', `the worktree ${slot.dir} was tampered with: its .git link is not the one git made`);
    }
    return slot.dir;
  }

  /** Whether the worktree's HEAD is detached at `commit`, read from git's own file for it (no process). */
  #detachedAt(slot: Slot, commit: string): boolean {
    this.#verified(slot);
    try {
      return readFileSync(path.join(slot.admin, 'HEAD'), 'utf8') === `${commit}\n`;
    } catch {
      return false;
    }
  }

  #release(slot: Slot): void {
    // After a tick: the attempt's outcome goes out before git is spawned (a spawn blocks the event loop for a while).
    const cleaning = new Promise((resolve) => setImmediate(resolve)).then(() => this.#clean(slot)).then(
      () => {
        if (this.#closed) return this.#discard(slot);
        this.#idle.push(slot);
        this.#wake();
        return undefined;
      },
      () => this.#discard(slot),
    );
    this.#cleaning.add(cleaning);
    void cleaning.finally(() => this.#cleaning.delete(cleaning));
  }

  async #clean(slot: Slot): Promise<void> {
    this.#verified(slot);
    for (const state of ['index', 'config.worktree', path.join('info', 'sparse-checkout')]) rmSync(path.join(slot.admin, state), { force: true });
    await git(slot.dir, ['reset', '--quiet', '--hard', 'HEAD']);
    await git(slot.dir, ['clean', '-ffdxq']);
    this.#verified(slot);
  }

  async #discard(slot: Slot): Promise<void> {
    try {
      await git(this.#options.repo, ['worktree', 'remove', '--force', slot.dir]).catch(() => {
        rmSync(slot.dir, { recursive: true, force: true });
        return git(this.#options.repo, ['worktree', 'prune']);
      });
    } catch {
      // A folder the worker cannot remove stays behind; the pool no longer uses it.
    } finally {
      this.#count -= 1;
      this.#wake();
    }
  }
}
