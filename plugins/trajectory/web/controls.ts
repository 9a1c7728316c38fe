/**
 * The run page's controls: one button per action the server says the run
 * offers now (the model's `controls`). Stop and checkpoint decisions ask
 * first, as `/workflow` does. A click POSTs `{ action, checkpoint? }` as JSON
 * with the viewer's custom header to `/<token>/api/runs/<id>/actions`; the
 * answer (or why not) shows beside the buttons, and the run's stream
 * redraws the page with the new state.
 */
import type { ControlView } from '../controls.js';
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

export async function postControl(base: string, runId: string, control: ControlView): Promise<{ ok: boolean; text: string }> {
  const response = await fetch(`${base}api/runs/${encodeURIComponent(runId)}/actions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workflow-viewer': '1' },
    body: JSON.stringify(control.checkpoint === undefined ? { action: control.action } : { action: control.action, checkpoint: control.checkpoint }),
  });
  const answer = (await response.json().catch(() => ({}))) as { message?: string; error?: string };
  return { ok: response.ok, text: answer.message ?? answer.error ?? `HTTP ${response.status}` };
}

/** Redraws the control bar into `bar` (its message line is kept across redraws). */
export function renderControls(bar: HTMLElement, base: string, runId: string, controls: readonly ControlView[]): void {
  const message = bar.querySelector('#control-message') ?? el('span', { id: 'control-message', class: 'muted' });
  const buttons = controls.map((control) => {
    const button = el('button', { type: 'button', class: `control control-${control.action}`, 'data-action': control.action, ...(control.checkpoint === undefined ? {} : { 'data-checkpoint': control.checkpoint }) }, [label(control)]);
    button.addEventListener('click', () => {
      const ask = question(control, runId);
      if (ask !== undefined && !window.confirm(ask)) return;
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
    });
    return button;
  });
  bar.replaceChildren(...buttons, ...(buttons.length === 0 ? [el('span', { class: 'muted' }, ['No actions: the run has ended.'])] : []), ' ', message);
}
