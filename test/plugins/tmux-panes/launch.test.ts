import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { attemptFiles, launchEnv, piArgs, writePrivate } from '../../../plugins/tmux-panes/launch.js';
import { renderTranscript } from '../../../lib/transcripts/text.js';
import { accepts } from '../../../plugins/tmux-panes/transport.js';

const prepared = { model: '', tools: [], skills: [], extensions: [], excludeTools: [] };

describe('what a pane runs', () => {
  it('takes only configurations pi can reproduce from its command line', () => {
    expect(accepts(prepared)).toBe(true);
    expect(accepts({ ...prepared, tools: ['read', 'bash'] })).toBe(true);
    expect(accepts({ ...prepared, tools: ['re*'] })).toBe(false);
    expect(accepts({ ...prepared, tools: ['re*'], rootTools: ['read'] })).toBe(true);
    expect(accepts({ ...prepared, skills: ['x'] })).toBe(false);
    expect(accepts({ ...prepared, extensions: ['x'] })).toBe(false);
    expect(accepts({ ...prepared, contextFiles: ['AGENTS.md'] })).toBe(false);
    expect(accepts({ ...prepared, contextFiles: false })).toBe(true);
  });

  it('builds the pi command line with no prompt on it', () => {
    const input = { cwd: '/p', model: 'e2e/m:high', tools: [], sessionLabel: 'l', settings: {}, options: {} };
    expect(piArgs({ pi: ['node', 'pi.js'], entry: '/e.js', input, tools: ['read', 'workflow_result'], excludeTools: ['bash'], contextFiles: false, systemPromptAppend: 'More', projectTrusted: false, name: 'l wf-1', sessionDir: '/s/workflows/wf-1' })).toEqual([
      'node', 'pi.js', '-e', '/e.js', '--name', 'l wf-1', '--session-dir', '/s/workflows/wf-1', '--no-approve', '--model', 'e2e/m:high', '--append-system-prompt', 'More', '--no-context-files', '--tools', 'read,workflow_result', '--exclude-tools', 'bash',
    ]);
  });

  it('keeps the pane its own tmux variables and names the private files', () => {
    const files = attemptFiles();
    try {
      expect(statSync(files.dir).mode & 0o777).toBe(0o700);
      const env = launchEnv({ TMUX: 'x', TMUX_PANE: '%0', HOME: '/h' }, files);
      expect(env).toEqual({ HOME: '/h', PI_EXTENSIBLE_WORKFLOWS_PANE: files.pane, PI_EXTENSIBLE_WORKFLOWS_SETTINGS_FILE: files.settings });
      writePrivate(files.settings, { a: 1 });
      expect(statSync(files.settings).mode & 0o777).toBe(0o600);
      expect(() => writePrivate(files.settings, {})).toThrow(/EEXIST/);
    } finally {
      files.remove();
    }
  });

  it('renders a session transcript, skipping a torn line', () => {
    const lines = [
      { type: 'session', id: 's' },
      { type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'Task' }] } },
      { type: 'message', message: { role: 'assistant', content: [{ type: 'toolCall', name: 'workflow_result', arguments: { result: 'ok' } }] } },
      { type: 'message', message: { role: 'toolResult', toolName: 'workflow_result', isError: false, content: [{ type: 'text', text: 'Result recorded.' }] } },
    ].map((line) => JSON.stringify(line));
    expect(renderTranscript(`${lines.join('\n')}\n{"type":"mess`)).toBe(
      '── user\nTask\n\n── assistant\n→ workflow_result {"result":"ok"}\n\n── workflow_result result\nResult recorded.\n\n[an unreadable line]',
    );
  });
});
