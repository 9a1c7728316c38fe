/**
 * A live terminal view in Pi's TUI (`ctx.ui.custom`): the view closes with a
 * value, redraws when one of its sources says so (run events, progress, a
 * clock), and stops listening when it closes. The `/workflow` and
 * `/subagents` dashboards are such views.
 */
import type { ExtensionUIContext, KeybindingsManager, Theme, ThemeColor } from '@earendil-works/pi-coding-agent';
import type { Component } from '@earendil-works/pi-tui';
import type { AgentState, RunState } from '../../kernel/index.js';

export interface LiveView extends Component {
  /** Rereads what it shows (before a redraw). */
  refresh(): void;
  handleInput(data: string): void;
}

export interface LiveViewParts<T> {
  readonly theme: Theme;
  readonly keybindings: KeybindingsManager;
  /** Closes the view with its value. */
  readonly done: (value: T) => void;
}

export interface LiveViewSetup {
  readonly view: LiveView;
  /** Subscribes `redraw` to the view's sources; returns the unsubscribes. */
  subscribe(redraw: () => void): (() => void)[];
}

export function showLiveView<T>(ui: ExtensionUIContext, create: (parts: LiveViewParts<T>) => LiveViewSetup): Promise<T> {
  return ui.custom<T>((tui, theme, keybindings, done) => {
    const offs: (() => void)[] = [];
    const dispose = (): void => {
      for (const off of offs.splice(0)) off();
    };
    const { view, subscribe } = create({
      theme,
      keybindings,
      done: (value) => {
        dispose();
        done(value);
      },
    });
    offs.push(
      ...subscribe(() => {
        view.refresh();
        tui.requestRender();
      }),
    );
    return {
      render: (width) => view.render(width),
      invalidate: () => view.invalidate(),
      handleInput: (data) => {
        view.handleInput(data);
        tui.requestRender();
      },
      dispose,
    };
  });
}

/** Theme colors of run and agent states in dashboards; other states keep the text color. */
export const STATE_COLORS: Partial<Record<RunState | AgentState, ThemeColor>> = {
  completed: 'success',
  failed: 'error',
  stopped: 'error',
  cancelled: 'error',
  awaiting_input: 'warning',
  budget_exhausted: 'warning',
  paused: 'warning',
  interrupted: 'warning',
  pausing: 'warning',
};
