import { describe, expect, it } from 'vitest';
import { DEFAULT_PANE_SETTINGS, paneSettings, validatePaneSettings, wantsPane } from '../../../plugins/tmux-panes/settings.js';

const context = { source: 'global' } as never;

describe('tmux-panes settings', () => {
  it('defaults to no agent in panes', () => {
    expect(paneSettings({})).toBe(DEFAULT_PANE_SETTINGS);
    expect(wantsPane(paneSettings({}), 'anything')).toBe(false);
  });

  it('chooses all, none, or labels by micromatch pattern', () => {
    expect(wantsPane(paneSettings({ 'tmux-panes': { agents: 'all' } }), 'x')).toBe(true);
    expect(wantsPane(paneSettings({ 'tmux-panes': { agents: 'none' } }), 'x')).toBe(false);
    const labels = paneSettings({ 'tmux-panes': { agents: { labels: ['review*', 'scout'] } } });
    expect(wantsPane(labels, 'reviewer-2')).toBe(true);
    expect(wantsPane(labels, 'scout')).toBe(true);
    expect(wantsPane(labels, 'scouting')).toBe(false);
  });

  it('rejects invalid values naming the key, and ignores other keys', () => {
    for (const value of [{}, { agents: 'some' }, { agents: { labels: [] } }, { agents: 'all', extra: 1 }, 'all']) {
      expect(() => validatePaneSettings({ 'tmux-panes': value }, context)).toThrow(/extensionSettings\["tmux-panes"\] is invalid/);
    }
    expect(() => validatePaneSettings({ other: { anything: true } }, context)).not.toThrow();
  });
});
