/**
 * What an agent's pane runs, and the private files it reads. Everything the
 * pane's `pi` needs travels in 0600 files inside a fresh 0700 directory,
 * never on a command line (`ps` shows command lines to every user):
 *
 * - `launch.json`: the `pi` argv and the host's environment. The pane runs a
 *   tiny launcher (`node -e`) that reads and deletes it, then starts `pi`
 *   with that environment on top of the pane's own (tmux's `TMUX` and
 *   `TMUX_PANE` stay the pane's).
 * - `pane.json`: the channel socket, token and the tools (PANE_CONFIG_ENV).
 * - `settings.json`: the frozen extension settings (spec 2 "Extension
 *   settings transport", SETTINGS_FILE_ENV).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonValue, SessionInput } from '../../kernel/index.js';
import { PANE_CONFIG_ENV, SETTINGS_FILE_ENV, type LaunchSpec, type PaneConfig } from './protocol.js';

export interface AttemptFiles {
  readonly dir: string;
  readonly socket: string;
  readonly launch: string;
  readonly pane: string;
  readonly settings: string;
  remove(): void;
}

/** Directories of attempts still open, removed when the host process exits without disposing them. */
const open = new Set<string>();
let exitHook = false;

function removeDir(dir: string): void {
  open.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

/** A fresh private directory for one attempt (mkdtemp creates it 0700). */
export function attemptFiles(): AttemptFiles {
  const dir = mkdtempSync(join(tmpdir(), 'pi-wf-pane-'));
  open.add(dir);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const left of [...open]) removeDir(left);
    });
  }
  return {
    dir,
    socket: join(dir, 'channel.sock'),
    launch: join(dir, 'launch.json'),
    pane: join(dir, 'pane.json'),
    settings: join(dir, 'settings.json'),
    remove: () => removeDir(dir),
  };
}

/** Writes a new private file: 0600, never over an existing one. */
export function writePrivate(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value)}\n`, { mode: 0o600, flag: 'wx' });
}

/**
 * Reads the launch file named by its one argument, deletes it, and runs the
 * argv with the environment merged over the pane's. SIGINT belongs to `pi`
 * (Ctrl-C in the pane); a hang-up or termination is passed on; the exit code
 * is `pi`'s.
 */
export const LAUNCHER_SOURCE = `
import { readFileSync, unlinkSync } from 'node:fs';
import { spawn } from 'node:child_process';
const file = process.argv[1];
const spec = JSON.parse(readFileSync(file, 'utf8'));
unlinkSync(file);
const child = spawn(spec.argv[0], spec.argv.slice(1), { stdio: 'inherit', env: { ...process.env, ...spec.env } });
process.on('SIGINT', () => {});
for (const signal of ['SIGHUP', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)));
`;

export function launcherCommand(launchFile: string): string[] {
  return [process.execPath, '--input-type=module', '-e', LAUNCHER_SOURCE, launchFile];
}

/** The pane's own tmux variables; everything else comes from the host. */
const PANE_OWNED = new Set(['TMUX', 'TMUX_PANE']);

export function launchEnv(hostEnv: NodeJS.ProcessEnv, files: AttemptFiles): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(hostEnv)) if (value !== undefined && !PANE_OWNED.has(name)) env[name] = value;
  env[PANE_CONFIG_ENV] = files.pane;
  env[SETTINGS_FILE_ENV] = files.settings;
  return env;
}

export interface PiArgsInput {
  readonly pi: readonly string[];
  /** The tmux-panes entry the pane's pi loads with `-e` (it becomes the pane side). */
  readonly entry: string;
  readonly input: SessionInput;
  readonly systemPrompt?: string | undefined;
  readonly systemPromptAppend?: string | undefined;
  readonly contextFiles?: boolean | readonly string[] | undefined;
  /** The `--tools` allowlist (own tools included), or undefined for pi's defaults. */
  readonly tools?: readonly string[] | undefined;
  readonly excludeTools: readonly string[];
  readonly projectTrusted: boolean;
  readonly name: string;
  /** Where the pane's pi writes its session file (the run's transcript folder). */
  readonly sessionDir: string;
}

/** The interactive `pi` of one pane: no prompt on the command line (it comes through the channel). */
export function piArgs(options: PiArgsInput): string[] {
  const args = [...options.pi, '-e', options.entry, '--name', options.name, '--session-dir', options.sessionDir, options.projectTrusted ? '--approve' : '--no-approve'];
  if (options.input.model !== '') args.push('--model', options.input.model);
  if (options.systemPrompt !== undefined) args.push('--system-prompt', options.systemPrompt);
  if (options.systemPromptAppend !== undefined) args.push('--append-system-prompt', options.systemPromptAppend);
  if (options.contextFiles === false) args.push('--no-context-files');
  if (options.tools !== undefined) args.push('--tools', options.tools.join(','));
  if (options.excludeTools.length > 0) args.push('--exclude-tools', options.excludeTools.join(','));
  return args;
}

export function writeAttemptFiles(files: AttemptFiles, launch: LaunchSpec, pane: PaneConfig, settings: Readonly<Record<string, JsonValue>>): void {
  writePrivate(files.settings, settings);
  writePrivate(files.pane, pane);
  writePrivate(files.launch, launch);
}
