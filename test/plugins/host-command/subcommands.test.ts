/**
 * `/workflow <name>` subcommands claimed by loaded plugins through the
 * kernel's `registry.commands` hook: the host runs the claimed one with its
 * arguments and reports its answer; `trajectory` stays, reporting that the
 * viewer is disabled, when nothing claims it; bad claims are refused.
 */
import type { ExtensionAPI, ExtensionCommandContext, RegisteredCommand } from '@earendil-works/pi-coding-agent';
import { afterAll, describe, expect, it } from 'vitest';
import type { KernelPlugin, SubcommandInput } from '../../../kernel/index.js';
import { registerWorkflowCommand, TRAJECTORY_DISABLED, WORKFLOW_COMMAND_MESSAGE } from '../../../plugins/host/command/index.js';
import type { WorkflowHostView } from '../../../plugins/host/view.js';
import { createHarness, thrownBy, type Harness } from '../../support/engine-harness.js';
import { scriptedDialogs } from './dialogs.js';

const harnesses: Harness[] = [];
afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
});

function claiming(names: readonly string[], seen: SubcommandInput[]): KernelPlugin {
  return {
    name: `claims-${names.join('-')}`,
    apply(kernel) {
      kernel.hooks.registry.commands.tap('claims', (commands) => [
        ...commands,
        ...names.map((name) => ({ name, description: name, run: async (input: SubcommandInput) => (seen.push(input), { text: `${name} ran with "${input.args}"`, level: 'info' as const }) })),
      ]);
    },
  };
}

function commandFor(plugins: KernelPlugin[]): { handler: RegisteredCommand['handler']; messages: unknown[]; h: Harness } {
  const h = createHarness({ plugins });
  harnesses.push(h);
  const view: WorkflowHostView = { engine: h.engine, cwd: h.cwd, sessionId: h.sessionId, agentDir: h.agentDir, projectTrusted: false, settingsPath: () => '', watch: () => undefined };
  let command: Omit<RegisteredCommand, 'name' | 'sourceInfo'> | undefined;
  const messages: unknown[] = [];
  const pi = { registerCommand: (_name: string, options: typeof command) => (command = options), sendMessage: (message: unknown) => void messages.push(message) } as unknown as ExtensionAPI;
  registerWorkflowCommand(pi, () => view);
  if (command === undefined) throw new Error('not registered');
  return { handler: command.handler, messages, h };
}

const context = (mode: 'tui' | 'json', ui: ReturnType<typeof scriptedDialogs>) => ({ mode, hasUI: mode === 'tui', ui }) as unknown as ExtensionCommandContext;

describe('/workflow subcommands', () => {
  it('runs the claimed subcommand with its arguments and reports its answer, with and without a UI', async () => {
    const seen: SubcommandInput[] = [];
    const { handler, messages, h } = commandFor([claiming(['trajectory'], seen)]);
    const ui = scriptedDialogs([]);
    await handler('trajectory  wf-1 ', context('tui', ui));
    await handler('trajectory', context('json', ui));
    expect(ui.notes).toEqual([{ level: 'info', message: 'trajectory ran with "wf-1"' }]);
    expect(messages).toEqual([{ customType: WORKFLOW_COMMAND_MESSAGE, display: true, details: { level: 'info' }, content: 'trajectory ran with ""' }]);
    expect(seen.map((input) => [input.args, input.interactive, input.cwd, input.engine === h.engine])).toEqual([
      ['wf-1', true, h.cwd, true],
      ['', false, h.cwd, true],
    ]);
  });

  it('reports the viewer disabled when no plugin claims trajectory, and still rejects unclaimed words', async () => {
    const { handler } = commandFor([claiming(['other'], [])]);
    const ui = scriptedDialogs([]);
    await handler('trajectory', context('tui', ui));
    await handler('resume', context('tui', ui));
    expect(ui.notes.map((note) => note.message)).toEqual([TRAJECTORY_DISABLED, expect.stringContaining('/workflow takes no arguments (got "resume")')]);
  });

  it('refuses two claims of one name and malformed names with CONFIG_ERROR', () => {
    const twice = createHarness({ plugins: [claiming(['same'], []), { ...claiming(['same'], []), name: 'second' }] });
    harnesses.push(twice);
    expect(thrownBy(() => twice.engine.subcommands())).toMatchObject({ code: 'CONFIG_ERROR', message: expect.stringContaining('"same"') });
    const bad = createHarness({ plugins: [claiming(['Bad Name'], [])] });
    harnesses.push(bad);
    expect(thrownBy(() => bad.engine.subcommands())).toMatchObject({ code: 'CONFIG_ERROR' });
  });
});
