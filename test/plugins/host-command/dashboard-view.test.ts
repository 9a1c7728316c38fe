/**
 * The terminal dashboard component without a terminal: Pi's real key
 * bindings, a plain theme. The cursor skips header rows, Enter picks the
 * root or an agent, a refresh keeps the selected agent, and every line fits
 * the width even with wide characters.
 */
import type { Theme } from '@earendil-works/pi-coding-agent';
import { KeybindingsManager, TUI_KEYBINDINGS, visibleWidth } from '@earendil-works/pi-tui';
import { describe, expect, it } from 'vitest';
import type { StatusSummary } from '../../../kernel/index.js';
import { DashboardView, type DashboardPick } from '../../../plugins/host/command/dashboard-view.js';
import { agent, summary } from './summaries.js';

const plain = { fg: (_color: string, text: string) => text, bold: (text: string) => text } as unknown as Theme;
const DOWN = '\u001b[B';
const UP = '\u001b[A';
const ENTER = '\r';
const ESCAPE = '\u001b';

function view(load: () => StatusSummary): { dashboard: DashboardView; picks: (DashboardPick | undefined)[] } {
  const picks: (DashboardPick | undefined)[] = [];
  const dashboard = new DashboardView({ load, theme: plain, keybindings: new KeybindingsManager(TUI_KEYBINDINGS), done: (pick) => void picks.push(pick) });
  return { dashboard, picks };
}

describe('the dashboard component', () => {
  const run = summary({ phase: 'build', agents: [agent({ id: 'a1', label: 'first', path: ['parallel:p/x'], phase: 'build' }), agent({ id: 'a2', label: 'second', path: ['parallel:p/x'], phase: 'build' })] });

  it('moves over the root and agents only and picks the selected row', () => {
    const { dashboard, picks } = view(() => run);
    dashboard.handleInput(ENTER);
    dashboard.handleInput(DOWN);
    dashboard.handleInput(ENTER);
    dashboard.handleInput(DOWN);
    dashboard.handleInput(DOWN);
    dashboard.handleInput(ENTER);
    dashboard.handleInput(UP);
    dashboard.handleInput(UP);
    dashboard.handleInput(ENTER);
    dashboard.handleInput(ESCAPE);
    expect(picks).toEqual([{ kind: 'root' }, { kind: 'agent', agentId: 'a1' }, { kind: 'agent', agentId: 'a2' }, { kind: 'root' }, undefined]);
  });

  it('keeps the selected agent across a refresh that adds rows above it, and closes when the run is gone', () => {
    let current = run;
    let deleted = false;
    const { dashboard, picks } = view(() => {
      if (deleted) throw new Error('deleted');
      return current;
    });
    dashboard.handleInput(DOWN);
    dashboard.handleInput(DOWN);
    current = summary({ agents: [agent({ id: 'a0', label: 'zeroth' }), ...run.agents] });
    dashboard.refresh();
    expect(dashboard.render(80).find((line) => line.startsWith('›'))).toContain('second');
    deleted = true;
    dashboard.refresh();
    expect(picks).toEqual([undefined]);
  });

  it('fits every line to the width, wide characters included', () => {
    const wide = summary({ workflow: { name: '審査ワークフロー' }, agents: [agent({ id: 'a', label: '非常に長いエージェントの名前です', path: ['parallel:並列/キー'] })] });
    const lines = view(() => wide).dashboard.render(24);
    expect(lines.length).toBeGreaterThan(6);
    for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(24);
  });
});
