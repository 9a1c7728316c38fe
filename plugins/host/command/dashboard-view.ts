/**
 * The run dashboard as a Pi terminal component: a thin renderer of the
 * dashboard model with a cursor over its selectable rows (the Workflow root
 * and agents). It picks a row and hands it back; the command performs actions.
 */
import { DynamicBorder, type KeybindingsManager, type Theme } from '@earendil-works/pi-coding-agent';
import { truncateToWidth, type Component } from '@earendil-works/pi-tui';
import type { StatusSummary } from '../../../kernel/index.js';
import { STATE_COLORS } from '../../../lib/pi-ui/live-view.js';
import { runDetails } from '../dashboard/details.js';
import { dashboardRows, nextSelectable, rowIndexOf, type DashboardRow } from '../dashboard/tree.js';

export type DashboardPick = { readonly kind: 'root' } | { readonly kind: 'agent'; readonly agentId: string };

/** Tree rows shown at once; the window follows the cursor. */
const WINDOW = 16;

export interface DashboardViewOptions {
  /** Reads the run afresh; throws when it is gone. */
  readonly load: () => StatusSummary;
  /** Each agent's transport when it is not the host's own (read with the run). */
  readonly transports?: (run: StatusSummary) => ReadonlyMap<string, string>;
  readonly theme: Theme;
  /** Pi's key bindings: the select up, down, confirm and cancel keys move and pick. */
  readonly keybindings: Pick<KeybindingsManager, 'matches'>;
  readonly done: (pick: DashboardPick | undefined) => void;
  /** The agent row to start on (after an agent's actions). */
  readonly agentId?: string;
}

export class DashboardView implements Component {
  readonly #options: DashboardViewOptions;
  #run: StatusSummary;
  #rows: DashboardRow[];
  #cursor: number;

  constructor(options: DashboardViewOptions) {
    this.#options = options;
    this.#run = options.load();
    this.#rows = this.#rowsOf(this.#run);
    this.#cursor = rowIndexOf(this.#rows, options.agentId);
  }

  /** Rereads the run (an event changed it); a deleted run closes the dashboard. */
  refresh(): void {
    const selected = this.#rows[this.#cursor];
    try {
      this.#run = this.#options.load();
    } catch {
      this.#options.done(undefined);
      return;
    }
    this.#rows = this.#rowsOf(this.#run);
    this.#cursor = rowIndexOf(this.#rows, selected?.kind === 'agent' ? selected.agent.id : undefined);
  }

  #rowsOf(run: StatusSummary): DashboardRow[] {
    return dashboardRows(run, this.#options.transports?.(run));
  }

  handleInput(data: string): void {
    const keys = this.#options.keybindings;
    if (keys.matches(data, 'tui.select.up')) this.#cursor = nextSelectable(this.#rows, this.#cursor, -1);
    else if (keys.matches(data, 'tui.select.down')) this.#cursor = nextSelectable(this.#rows, this.#cursor, 1);
    else if (keys.matches(data, 'tui.select.cancel')) this.#options.done(undefined);
    else if (keys.matches(data, 'tui.select.confirm')) {
      const row = this.#rows[this.#cursor];
      this.#options.done(row?.kind === 'agent' ? { kind: 'agent', agentId: row.agent.id } : { kind: 'root' });
    }
  }

  invalidate(): void {
    // Nothing is cached: every render styles the current rows with the current theme.
  }

  render(width: number): string[] {
    const { theme } = this.#options;
    const fit = (text: string): string => truncateToWidth(text, width);
    const border = new DynamicBorder((text) => theme.fg('border', text)).render(width);
    const lines = [...border, theme.fg('accent', theme.bold(fit('Workflow dashboard'))), ...runDetails(this.#run).map((line) => theme.fg('muted', fit(line))), ''];
    const start = Math.min(Math.max(0, this.#cursor - Math.floor(WINDOW / 2)), Math.max(0, this.#rows.length - WINDOW));
    const end = Math.min(this.#rows.length, start + WINDOW);
    if (start > 0) lines.push(theme.fg('dim', fit(`  … ${start} more above`)));
    for (let index = start; index < end; index += 1) {
      const row = this.#rows[index]!;
      const selected = index === this.#cursor;
      const text = fit(`${selected ? '› ' : '  '}${'  '.repeat(row.depth)}${row.text}`);
      lines.push(selected ? theme.fg('accent', theme.bold(text)) : this.#style(row, text));
    }
    if (end < this.#rows.length) lines.push(theme.fg('dim', fit(`  … ${this.#rows.length - end} more below`)));
    lines.push('', theme.fg('dim', fit('↑↓ select · enter actions · esc back')), ...border);
    return lines;
  }

  #style(row: DashboardRow, text: string): string {
    const { theme } = this.#options;
    if (row.kind === 'phase') return theme.bold(text);
    if (row.kind === 'group') return theme.fg('muted', text);
    const color = STATE_COLORS[row.kind === 'root' ? row.state : row.agent.state];
    return color === undefined ? text : theme.fg(color, text);
  }
}
