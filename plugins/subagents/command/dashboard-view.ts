/**
 * One subagent's live dashboard as a Pi terminal component, in the style of
 * `/workflow`'s: a border, the title, the detail rows (state, model, role,
 * tools, attempts, duration, tokens, cost, progress, error), the key hints.
 * Enter opens the subagent's actions, Esc goes back to the picker. It
 * rereads the run when told (run events, progress) and while the run
 * executes once a second, so the duration moves.
 */
import { DynamicBorder, type KeybindingsManager, type Theme } from '@earendil-works/pi-coding-agent';
import { truncateToWidth } from '@earendil-works/pi-tui';
import { STATE_COLORS, type LiveView } from '../../../lib/pi-ui/live-view.js';
import type { SubagentRecord } from '../records.js';
import { detailLines } from './describe.js';
import { printable } from '../../../lib/terminal-text.js';

export interface SubagentDashboardOptions {
  /** Reads the subagent afresh; throws when it is gone. */
  readonly load: () => SubagentRecord;
  readonly theme: Theme;
  readonly keybindings: Pick<KeybindingsManager, 'matches'>;
  /** `actions` on Enter, undefined on Esc or when the run is gone. */
  readonly done: (pick: 'actions' | undefined) => void;
}

export class SubagentDashboardView implements LiveView {
  readonly #options: SubagentDashboardOptions;
  #record: SubagentRecord;

  constructor(options: SubagentDashboardOptions) {
    this.#options = options;
    this.#record = options.load();
  }

  get record(): SubagentRecord {
    return this.#record;
  }

  refresh(): void {
    try {
      this.#record = this.#options.load();
    } catch {
      this.#options.done(undefined);
    }
  }

  handleInput(data: string): void {
    const keys = this.#options.keybindings;
    if (keys.matches(data, 'tui.select.cancel')) this.#options.done(undefined);
    else if (keys.matches(data, 'tui.select.confirm')) this.#options.done('actions');
  }

  invalidate(): void {
    // Nothing is cached: every render styles the current record with the current theme.
  }

  render(width: number): string[] {
    const { theme } = this.#options;
    const record = this.#record;
    const fit = (text: string): string => truncateToWidth(text, width);
    const border = new DynamicBorder((text) => theme.fg('border', text)).render(width);
    const color = STATE_COLORS[record.state];
    const head = fit(printable(`› Subagent ${record.label} · ${record.state}`));
    return [
      ...border,
      theme.fg('accent', theme.bold(fit('Subagent dashboard'))),
      '',
      color === undefined ? theme.bold(head) : theme.fg(color, theme.bold(head)),
      ...detailLines(record).map((line) => fit(`  ${line}`)),
      '',
      theme.fg('dim', fit('enter actions · esc back')),
      ...border,
    ];
  }
}
