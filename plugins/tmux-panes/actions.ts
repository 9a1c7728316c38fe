/**
 * The `/workflow` attempt actions of pane-backed agents (spec 2
 * "AgentAttemptAction"): live handoff brings a running agent's pane to the
 * front, where the user watches it or types into it; inspection opens a
 * finished agent's session read-only (its transcript in `less`) in a new
 * window. Both read only the persisted session reference; `visible` does no
 * tmux call.
 */
import { type AgentAttemptAction, type JsonValue, type WorkflowAttemptActionContext } from '../../kernel/index.js';
import { attemptFiles } from './launch.js';
import { TRANSPORT_NAME } from './transport.js';
import { Tmux } from './tmux.js';
import { printable, printableLines } from '../../lib/terminal-text.js';
import { readTranscript } from '../../lib/transcripts/text.js';
import { writeFileSync } from 'node:fs';

export interface PaneReference {
  readonly socket: string;
  readonly pane: string;
  readonly window: string;
  readonly label: string;
  readonly sessionFile?: string;
}

/** The reference of a pane-backed attempt, or undefined. */
export function paneReference(reference: Readonly<Record<string, JsonValue>> | undefined): PaneReference | undefined {
  if (reference?.['transport'] !== TRANSPORT_NAME) return undefined;
  const { socket, pane, window, label, sessionFile } = reference;
  if (typeof socket !== 'string' || typeof pane !== 'string' || typeof window !== 'string') return undefined;
  return { socket, pane, window, label: typeof label === 'string' ? label : '', ...(typeof sessionFile === 'string' ? { sessionFile } : {}) };
}

const running = (context: WorkflowAttemptActionContext): boolean => context.agent['state'] === 'running';

export const openPaneAction: AgentAttemptAction = {
  label: 'Open tmux pane (watch or type)',
  visible: (context) => paneReference(context.sessionReference) !== undefined && running(context),
  async run(context) {
    const reference = paneReference(context.sessionReference);
    if (reference === undefined) return;
    const tmux = new Tmux({ socket: reference.socket });
    const state = await tmux.paneState(reference.pane);
    if (state === undefined || state.dead) {
      context.ui.notify(`The agent's pane ${reference.pane} is gone.`, 'warning');
      return;
    }
    await tmux.focus(reference.pane);
  },
};

/** The pager of a read-only transcript; its private directory is removed when the pager ends, also on a hang-up (the window killed). */
function pagerCommand(file: string, dir: string): string[] {
  // The paths are positional parameters, never spliced into the script.
  return ['sh', '-c', 'trap \'rm -rf -- "$1"\' EXIT HUP TERM; less -R -- "$2"', 'pane-transcript', dir, file];
}

export const inspectSessionAction: AgentAttemptAction = {
  label: 'Open session read-only in tmux',
  visible: (context) => paneReference(context.sessionReference)?.sessionFile !== undefined && !running(context),
  async run(context) {
    const reference = paneReference(context.sessionReference);
    if (reference?.sessionFile === undefined) return;
    const files = attemptFiles();
    const file = `${files.dir}/transcript.txt`;
    try {
      // `less -R` passes escapes through: what a model or a tool wrote is shown, never acted on.
      writeFileSync(file, printableLines(readTranscript(reference.sessionFile)), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      files.remove();
      throw new Error(`the session file ${reference.sessionFile} cannot be read: ${(error as Error).message}`);
    }
    const runId = typeof context.run['runId'] === 'string' ? context.run['runId'] : '';
    await new Tmux({ socket: reference.socket }).newWindow({
      name: printable(`${reference.label} ${runId} (read-only)`.trim()),
      cwd: files.dir,
      command: pagerCommand(file, files.dir),
      detached: false,
    });
  },
};
