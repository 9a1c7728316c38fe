/**
 * Where workflow agents' native Pi session files (their transcripts) go: in
 * Pi's session storage for the run's launch directory, one folder per run,
 *
 *   <Pi session dir of the cwd>/workflows/<run-id>/<timestamp>_<session-id>.jsonl
 *
 * Pi's session dir is the one `pi` itself uses for that cwd:
 * `PI_CODING_AGENT_SESSION_DIR`, else the `sessionDir` setting (relative to
 * the cwd), else `<agentDir>/sessions/--<cwd with / as ->--/`. Both Pis'
 * session pickers (`/resume`, `pi --resume`, `pi --session <prefix>`) list
 * only the `*.jsonl` files directly in a session dir (and, for "all", in the
 * directories directly under `<agentDir>/sessions/`), so the nested folder
 * keeps hundreds of agent sessions out of the user's list. The folders are
 * 0700 and the files 0600: transcripts hold prompts, tool output and
 * anything a tool printed.
 */
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { homedir } from 'node:os';

/** The folder under Pi's session dir that holds workflow agents' sessions. */
export const TRANSCRIPTS_FOLDER = 'workflows';
/** Pi's variable for its session storage (`<APP>_CODING_AGENT_SESSION_DIR`, APP `pi`). */
export const SESSION_DIR_ENV = 'PI_CODING_AGENT_SESSION_DIR';

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export interface SessionDirInput {
  /** The run's launch directory (absolute). */
  readonly cwd: string;
  readonly agentDir: string;
  /** Pi's `sessionDir` setting, when set. */
  readonly configured?: string | undefined;
  readonly env?: NodeJS.ProcessEnv;
}

function expandHome(path: string): string {
  if (path === '~') return homedir();
  return path.startsWith('~/') ? join(homedir(), path.slice(2)) : path;
}

/** Pi's default session dir of a cwd: `<agentDir>/sessions/--<cwd without its leading slash, / \ : as ->--`. */
export function defaultPiSessionDir(cwd: string, agentDir: string): string {
  const safe = `--${resolve(cwd).replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
  return join(resolve(agentDir), 'sessions', safe);
}

/** The session dir `pi` uses for this cwd (without a `--session-dir` flag, which only that process knows). */
export function piSessionDir(input: SessionDirInput): string {
  const fromEnv = (input.env ?? process.env)[SESSION_DIR_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return resolve(input.cwd, expandHome(fromEnv));
  if (input.configured !== undefined && input.configured !== '') {
    const configured = expandHome(input.configured);
    return isAbsolute(configured) ? configured : resolve(input.cwd, configured);
  }
  return defaultPiSessionDir(input.cwd, input.agentDir);
}

/** The folder of one run's agent sessions. */
export function runTranscriptDir(input: SessionDirInput & { readonly runId: string }): string {
  if (!RUN_ID.test(input.runId)) throw new Error(`not a run ID: ${JSON.stringify(input.runId)}`);
  return join(piSessionDir(input), TRANSCRIPTS_FOLDER, input.runId);
}

/** Creates `dir` 0700 unless it exists; what exists must be a real directory (never a link to follow), and is narrowed to 0700. */
function privateFolder(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory (a symbolic link or a file is in the way)`);
  if ((stat.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}

/** Creates the run's folder and `workflows/` (0700); Pi's own session dir is created as Pi would create it, and left as it is. */
export function ensureRunTranscriptDir(dir: string): void {
  const folder = dirname(dir);
  mkdirSync(dirname(folder), { recursive: true });
  privateFolder(folder);
  privateFolder(dir);
}
