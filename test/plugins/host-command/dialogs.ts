/**
 * A scripted stand-in for Pi's dialog UI (unit tests only): each select,
 * input and confirm takes the next scripted answer, and a select answer must
 * be one of the offered options, so a test fails when the screen offers
 * something else than it expects. The editor takes no answer: it records
 * what was opened and hands back an edited text, which callers must discard.
 */
import type { ExtensionUIContext } from '@earendil-works/pi-coding-agent';
import type { Dialogs } from '../../../plugins/host/command/alias-editor.js';

export type Answer = { readonly select: string | RegExp } | { readonly input: string } | { readonly confirm: boolean } | 'cancel';

export interface ScriptedDialogs extends Dialogs, Pick<ExtensionUIContext, 'editor'> {
  readonly notes: { readonly message: string; readonly level: string }[];
  /** Every editor dialog: its title and text. */
  readonly opened: { readonly title: string; readonly text: string }[];
  /** Every select: its title and options. */
  readonly screens: { readonly title: string; readonly options: readonly string[] }[];
  /** Scripted answers not used yet. */
  readonly left: () => number;
}

export function scriptedDialogs(answers: Answer[]): ScriptedDialogs {
  const queue = [...answers];
  const notes: { message: string; level: string }[] = [];
  const screens: { title: string; options: readonly string[] }[] = [];
  const opened: { title: string; text: string }[] = [];
  const next = (kind: string): Answer => {
    const answer = queue.shift();
    if (answer === undefined) throw new Error(`no scripted answer left for a ${kind}`);
    return answer;
  };
  return {
    notes,
    screens,
    opened,
    left: () => queue.length,
    async select(title, options) {
      screens.push({ title, options });
      const answer = next('select');
      if (answer === 'cancel') return undefined;
      if (!('select' in answer)) throw new Error(`expected ${JSON.stringify(answer)}, got a select "${title}"`);
      const choice = options.find((option) => (typeof answer.select === 'string' ? option === answer.select : answer.select.test(option)));
      if (choice === undefined) throw new Error(`select "${title}" offers no ${String(answer.select)}: ${JSON.stringify(options)}`);
      return choice;
    },
    async input(title) {
      const answer = next('input');
      if (answer === 'cancel') return undefined;
      if (!('input' in answer)) throw new Error(`expected ${JSON.stringify(answer)}, got an input "${title}"`);
      return answer.input;
    },
    async confirm(title) {
      const answer = next('confirm');
      if (answer === 'cancel') return false;
      if (!('confirm' in answer)) throw new Error(`expected ${JSON.stringify(answer)}, got a confirm "${title}"`);
      return answer.confirm;
    },
    async editor(title, prefill = '') {
      opened.push({ title, text: prefill });
      return `${prefill}\n// edited`;
    },
    notify(message, level = 'info') {
      notes.push({ message, level });
    },
  };
}
