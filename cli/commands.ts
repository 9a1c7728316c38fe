/**
 * The `wfcli` commands in the order `wfcli --help` lists them: each one's
 * name and summary, and how to load its module. Only the module of the
 * command being run is imported, so `wfcli --help` loads none, `list`,
 * `status` and `view` load the run store's readers, and only the commands that
 * work in a headless Pi session ever reach Pi's SDK.
 */
import type { CommandSpec } from './command.js';

export interface CommandEntry {
  /** As typed: `run`, `doctor cleanup`. */
  readonly name: string;
  /** One line for `wfcli --help`, and the second paragraph of `wfcli <command> --help`. */
  readonly summary: string;
  /** Imports the command's module. */
  load(): Promise<CommandSpec>;
  /** It opens a headless Pi session: the process is set up for one before its module loads (session-process.ts). */
  readonly opensSession?: true;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: 'run', summary: 'Run a registered workflow, or a workflow script, in a headless Pi session.', opensSession: true, load: async () => (await import('./run.js')).runCommand },
  { name: 'status', summary: 'Show the state, failure, phase, budget and agents of a run.', load: async () => (await import('./status.js')).statusCommand },
  { name: 'list', summary: 'List the runs of this project (every session), oldest first.', load: async () => (await import('./list.js')).listCommand },
  { name: 'resume', summary: 'Resume a paused, interrupted or budget-exhausted run and wait for it.', opensSession: true, load: async () => (await import('./resume.js')).resumeCommand },
  { name: 'retry', summary: 'Retry a failed run as a new linked child run and wait for it.', opensSession: true, load: async () => (await import('./retry.js')).retryCommand },
  { name: 'stop', summary: 'Stop a run at once (irreversible).', opensSession: true, load: async () => (await import('./stop.js')).stopCommand },
  { name: 'doctor', summary: 'Report settings, trust, tools, extensions, skills, functions, aliases and resource policy; inspect a prepared agent.', opensSession: true, load: async () => (await import('./doctor.js')).doctorCommand },
  { name: 'doctor cleanup', summary: 'Remove old terminal runs of this project (dry run unless --yes).', load: async () => (await import('./cleanup.js')).cleanupCommand },
  { name: 'inspect', summary: 'Inspect the persisted runs of this project: agents, attempts, usage, errors, system prompts, worktrees.', load: async () => (await import('./inspect.js')).inspectCommand },
  { name: 'transcript', summary: 'Show a Pi session file as a readable, bounded transcript.', load: async () => (await import('./transcript.js')).transcriptCommand },
  { name: 'view', summary: 'Serve one local viewer for every stored run of this project, live ones included, until Ctrl-C.', load: async () => (await import('./view.js')).viewCommand },
  { name: 'report', summary: 'Write a run as one self-contained HTML file: result, phases, timeline, agents, transcripts.', load: async () => (await import('./report.js')).reportCommand },
  { name: 'export', summary: 'Write a launcher script that runs a registered workflow with wfcli run.', opensSession: true, load: async () => (await import('./export.js')).exportCommand },
  { name: 'worker', summary: 'Run remote agent attempts from a DBOS queue on Postgres (docs/remote.md).', load: async () => (await import('./worker.js')).workerCommand },
  { name: 'bundle', summary: 'Build a portable bundle of a registered workflow: its extension module, tree-shaken, and a launcher.', opensSession: true, load: async () => (await import('./bundle/command.js')).bundleCommand },
];
