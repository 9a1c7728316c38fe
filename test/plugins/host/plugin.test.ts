/** The host's kernel plugin on a bare kernel: events bridge, root model, launch check of script tool names. */
import { describe, expect, it } from 'vitest';
import { WORKFLOW_PHASE_CHANGED_EVENT, createKernel, type WorkflowEvent } from '../../../kernel/index.js';
import hostPlugin, { createHostPlugin } from '../../../plugins/host/index.js';
import { TOOLS_PRIMITIVE } from '../../../plugins/host/tool-primitive.js';
import { rejectionOf } from '../../support/engine-harness.js';

const event: WorkflowEvent = { type: WORKFLOW_PHASE_CHANGED_EVENT, runId: 'r', sessionId: 's', cwd: '/p', workflowName: 'w', at: 'now', phase: 'one' };
const launch = (toolNames: string[]) => ({ cwd: '/p', workflowName: 'w', toolNames, staticAgentOptions: [], signal: new AbortController().signal });

describe('the host kernel plugin', () => {
  it('bridges events best-effort: a throwing bus keeps the event from no other tap', () => {
    const seen: WorkflowEvent[] = [];
    const kernel = createKernel({
      plugins: [
        createHostPlugin({ eventBus: () => ({ emit: () => { throw new Error('listener broke'); } }) }),
        { name: 'recorder', apply: (k) => k.hooks.events.emit.tap('recorder', (e) => void seen.push(e)) },
      ],
    });
    kernel.hooks.events.emit.call(event);
    expect(seen).toEqual([event]);
  });

  it('adds the launching session\'s model as rootModel unless a transport already set one', async () => {
    const kernel = createKernel({ plugins: [createHostPlugin({ rootModel: () => 'faux/faux-1:low' })] });
    const input = { cwd: '/p', agentDir: '/a' };
    expect(await kernel.hooks.preparation.models.promise({ knownModels: [], availableModels: [] }, input)).toEqual({ knownModels: [], availableModels: [], rootModel: 'faux/faux-1:low' });
    expect((await kernel.hooks.preparation.models.promise({ knownModels: [], availableModels: [], rootModel: 'x/y:high' }, input)).rootModel).toBe('x/y:high');
  });

  it('contributes the tools namespace; without a Pi session every tool name is UNKNOWN_TOOL at launch', async () => {
    const kernel = createKernel({ plugins: [hostPlugin] });
    expect(kernel.hooks.registry.primitives.call([]).map((primitive) => [primitive.name, primitive.kind])).toEqual([[TOOLS_PRIMITIVE, 'namespace']]);
    await kernel.hooks.preparation.launch.promise(launch([]));
    const error = await rejectionOf(kernel.hooks.preparation.launch.promise(launch(['read'])));
    expect(error).toMatchObject({ code: 'UNKNOWN_TOOL', message: expect.stringContaining('no Pi session') });
  });
});
