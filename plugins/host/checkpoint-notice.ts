/**
 * While a foreground run waits on a checkpoint in interactive Pi, Pi shows
 * only its "Working" spinner: the tool call is blocked and the model cannot
 * answer. This says a decision is waiting and where to give it (`/workflow`):
 * a notification with the checkpoint's prompt when it starts waiting, and a
 * status line that stays until no checkpoint of the run waits any more.
 */
import { WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT, type WorkflowCheckpointStateChangedEvent } from '../../kernel/index.js';
import { printable, printableLines } from '../../lib/terminal-text.js';

/** Characters of the checkpoint's prompt the notification shows. */
const MAX_PROMPT_SHOWN = 1000;

/** The status line's key in Pi's footer. */
export const CHECKPOINT_STATUS_KEY = 'workflow-checkpoint';

export interface CheckpointNoticeInput {
  readonly runId: string;
  readonly workflow: string;
  /** Pi's event bus, where the engine announces checkpoint states. */
  readonly events: { on(event: string, handler: (data: unknown) => void): () => void };
  readonly ui: { notify(message: string, type?: 'info' | 'warning' | 'error'): void; setStatus(key: string, text: string | undefined): void };
  /** The checkpoint's prompt from the run's status (events carry no prompts). */
  readonly promptOf: (name: string) => string | undefined;
}

/** Announces the run's waiting checkpoints until disposed; disposing clears the status line. */
export function announceCheckpoints(input: CheckpointNoticeInput): { dispose(): void } {
  const { runId, workflow, ui } = input;
  const waiting = new Set<string>();
  const draw = (): void => {
    const names = [...waiting].map((name) => `"${printable(name)}"`).join(', ');
    ui.setStatus(CHECKPOINT_STATUS_KEY, waiting.size === 0 ? undefined : `Workflow ${printable(workflow)} waits for your decision on checkpoint ${names}: open /workflow to approve or reject`);
  };
  const off = input.events.on(WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT, (data) => {
    const event = data as WorkflowCheckpointStateChangedEvent;
    if (event.runId !== runId) return;
    if (event.state !== 'awaiting') {
      if (waiting.delete(event.name)) draw();
      return;
    }
    if (waiting.has(event.name)) return;
    waiting.add(event.name);
    draw();
    let prompt: string | undefined;
    try {
      prompt = input.promptOf(event.name);
    } catch {
      // The status read is best-effort: the notice names the checkpoint without its prompt.
    }
    // A notification is no place for a whole document: the start of the prompt, the rest in /workflow.
    const shown = prompt !== undefined && prompt.length > MAX_PROMPT_SHOWN ? `${prompt.slice(0, MAX_PROMPT_SHOWN)}… (/workflow shows all of it)` : prompt;
    const asked = shown === undefined ? '' : `\n${printableLines(shown)}`;
    ui.notify(`Workflow ${printable(workflow)} (run ${runId}) waits for your decision on checkpoint "${printable(event.name)}".${asked}\nOpen /workflow, select the run and approve or reject it.`, 'warning');
  });
  return {
    dispose: () => {
      off();
      if (waiting.size > 0) ui.setStatus(CHECKPOINT_STATUS_KEY, undefined);
      waiting.clear();
    },
  };
}
