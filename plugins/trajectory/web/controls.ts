/**
 * The run page's controls: one button per action the server says the run
 * offers now (the model's `controls`). Stop and checkpoint decisions ask
 * first, as `/workflow` does, in a dialog of the page (not `window.confirm`)
 * so a checkpoint's prompt and context, chosen by the script and so
 * untrusted, are shown as text in a bounded, scrollable box. A click POSTs `{ action, checkpoint? }` as JSON
 * with the viewer's custom header to `/<token>/api/runs/<id>/actions`; the
 * answer (or why not) shows beside the buttons, and the run's stream
 * redraws the page with the new state.
 */
import type { ControlView } from '../../../lib/trajectory/model.js';
import { el } from './dom.js';

const LABELS: Readonly<Record<ControlView['action'], string>> = {
  pause: 'Pause',
  'cancel-pause': 'Cancel pause',
  resume: 'Resume',
  stop: 'Stop',
  approve: 'Approve',
  reject: 'Reject',
};

function label(control: ControlView): string {
  return control.checkpoint === undefined ? LABELS[control.action] : `${LABELS[control.action]} checkpoint "${control.checkpoint}"`;
}

/** What to ask before an irreversible action; undefined when nothing is asked. */
function question(control: ControlView, runId: string): string | undefined {
  if (control.action === 'stop') return `Stop run ${runId}? Stopping is immediate and irreversible.`;
  if (control.checkpoint !== undefined) return `${LABELS[control.action]} checkpoint "${control.checkpoint}" of run ${runId}? The decision is final.`;
  return undefined;
}

/** Asks `ask` in a modal dialog showing what a checkpoint decides; resolves true only on the confirming button. */
function confirmInPage(ask: string, control: ControlView): Promise<boolean> {
  const shown = (heading: string, value: string | undefined, id: string): Node[] => (value === undefined ? [] : [el('h3', {}, [heading]), el('pre', { id }, [value])]);
  const yes = el('button', { type: 'button', 'data-answer': 'yes', class: `control-${control.action}` }, [label(control)]);
  const no = el('button', { type: 'button', 'data-answer': 'no' }, ['Cancel']);
  const dialog = el('dialog', { id: 'confirm-dialog', class: 'confirm' }, [
    ...shown('Prompt', control.prompt, 'confirm-prompt'),
    ...shown('Context', control.context, 'confirm-context'),
    el('p', { id: 'confirm-question' }, [ask]),
    el('div', { class: 'answers' }, [no, yes]),
  ]);
  document.body.append(dialog);
  return new Promise((resolve) => {
    // Escape closes the dialog without a value: that is a "no", like Cancel.
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'yes');
      dialog.remove();
    });
    yes.addEventListener('click', () => dialog.close('yes'));
    no.addEventListener('click', () => dialog.close('no'));
    dialog.showModal();
    no.focus();
  });
}

export async function postControl(base: string, runId: string, control: ControlView): Promise<{ ok: boolean; text: string }> {
  const response = await fetch(`${base}api/runs/${encodeURIComponent(runId)}/actions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workflow-viewer': '1' },
    body: JSON.stringify(control.checkpoint === undefined ? { action: control.action } : { action: control.action, checkpoint: control.checkpoint }),
  });
  const answer = (await response.json().catch(() => ({}))) as { message?: string; error?: string };
  return { ok: response.ok, text: answer.message ?? answer.error ?? `HTTP ${response.status}` };
}

/** Redraws the control bar into `bar` (its message line is kept across redraws); `note` says why there are no more buttons. */
export function renderControls(bar: HTMLElement, base: string, runId: string, controls: readonly ControlView[], note?: string): void {
  const message = bar.querySelector('#control-message') ?? el('span', { id: 'control-message', class: 'muted' });
  const buttons = controls.map((control) => {
    const button = el('button', { type: 'button', class: `control control-${control.action}`, 'data-action': control.action, ...(control.checkpoint === undefined ? {} : { 'data-checkpoint': control.checkpoint }) }, [label(control)]);
    const act = async (): Promise<void> => {
      const ask = question(control, runId);
      if (ask !== undefined && !(await confirmInPage(ask, control))) return;
      for (const other of Array.from(bar.querySelectorAll('button'))) other.disabled = true;
      message.textContent = `${label(control)}…`;
      postControl(base, runId, control).then(
        (answer) => {
          message.textContent = answer.text;
          message.className = answer.ok ? 'muted' : 'error-text';
          for (const other of Array.from(bar.querySelectorAll('button'))) other.disabled = false;
        },
        (error: unknown) => {
          message.textContent = `The viewer did not answer: ${error instanceof Error ? error.message : String(error)}`;
          message.className = 'error-text';
        },
      );
    };
    button.addEventListener('click', () => void act());
    return button;
  });
  const why = note !== undefined ? note : buttons.length === 0 ? 'No actions: the run has ended.' : undefined;
  bar.replaceChildren(...buttons, ...(why === undefined ? [] : [el('span', { class: 'muted', id: 'control-note' }, [why])]), ' ', message);
}
