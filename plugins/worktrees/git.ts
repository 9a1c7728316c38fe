/**
 * Git for the worktrees plugin: argument arrays through nano-spawn (never a
 * shell string), without the repository-locating variables a host started
 * from a git hook inherits, and every failure a WORKTREE_FAILED carrying the
 * start of git's stderr.
 */
import { WorkflowError, messageOf } from '../../kernel/index.js';

type NanoSpawn = typeof import('nano-spawn');

let nanoSpawn: Promise<NanoSpawn> | undefined;

/** nano-spawn on the first git command: a run that makes no worktree never loads it. */
function loadNanoSpawn(): Promise<NanoSpawn> {
  nanoSpawn ??= import('nano-spawn');
  return nanoSpawn;
}

/** How much of git's stderr a WORKTREE_FAILED message keeps. */
export const STDERR_PREFIX_CHARS = 1000;

// Undefined drops the variable from the child's environment.
const SCRUBBED: Readonly<Record<string, string | undefined>> = {
  GIT_DIR: undefined,
  GIT_WORK_TREE: undefined,
  GIT_INDEX_FILE: undefined,
  GIT_COMMON_DIR: undefined,
  GIT_OBJECT_DIRECTORY: undefined,
  GIT_ALTERNATE_OBJECT_DIRECTORIES: undefined,
  GIT_PREFIX: undefined,
  GIT_TERMINAL_PROMPT: '0',
};

function failure(args: readonly string[], error: unknown, SubprocessError: NanoSpawn['SubprocessError'] | undefined): WorkflowError {
  const command = `git ${args[0] ?? ''}`;
  if (SubprocessError !== undefined && error instanceof SubprocessError && typeof error.exitCode === 'number') {
    const stderr = error.stderr.trim().slice(0, STDERR_PREFIX_CHARS);
    return new WorkflowError('WORKTREE_FAILED', `${command} failed (exit ${error.exitCode}): ${stderr === '' ? '(no output)' : stderr}`, { command, exitCode: error.exitCode });
  }
  return new WorkflowError('WORKTREE_FAILED', `${command} could not run: ${messageOf(error)}`, { command });
}

/** Runs git in `cwd`; resolves to its stdout without the final newline. */
export async function git(cwd: string, args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<string> {
  let loaded: NanoSpawn | undefined;
  try {
    loaded = await loadNanoSpawn();
    const result = await loaded.default('git', args, { cwd, stdin: 'ignore', env: { ...SCRUBBED, ...env } as Record<string, string> });
    return result.stdout;
  } catch (error) {
    throw failure(args, error, loaded?.SubprocessError);
  }
}

/** Like `git`, but a failed command resolves to undefined (probes and best-effort cleanup). */
export async function gitOrUndefined(cwd: string, args: readonly string[]): Promise<string | undefined> {
  try {
    return await git(cwd, args);
  } catch {
    return undefined;
  }
}

const queues = new Map<string, Promise<unknown>>();

/**
 * Runs `task` after every earlier task of the same key (one repository):
 * worktree creations of parallel branches do not contend for git's locks.
 */
export function serialized<T>(key: string, task: () => Promise<T>): Promise<T> {
  const result = (queues.get(key) ?? Promise.resolve()).then(task);
  const tail = result.then(
    () => undefined,
    () => undefined,
  );
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return result;
}
