/**
 * `WorkflowEngine.inspectPreparation`, which `wfcli doctor` builds on: the
 * segment a launch would start (settings, the alias mapping) and one agent
 * prepared through the real chain in `inspection` mode; no run is created.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beginWorkflowExtensionLoading, registerWorkflowExtension, resetWorkflowRegistry, type AgentPreparationContext } from '../../kernel/index.js';
import { aliasesPlugin } from '../../plugins/aliases/index.js';
import { extensionHooksPlugin } from '../../plugins/extension-hooks/index.js';
import { selectorsPlugin } from '../../plugins/selectors/index.js';
import { createHarness, rejectionOf, type Harness } from '../support/engine-harness.js';

describe('preparation inspection without a run', () => {
  let harness: Harness;
  const modes: AgentPreparationContext['mode'][] = [];
  beforeEach(() => {
    modes.length = 0;
    beginWorkflowExtensionLoading();
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'Roles-like',
      agentPreparationHooks: {
        role: {
          priority: 1,
          optionsSchema: { type: 'object', properties: { role: { type: 'string' } } },
          prepare(configuration, context) {
            modes.push(context.mode);
            if (context.options.role === 'reviewer') {
              configuration.label ??= 'reviewer';
              configuration.skills.push('review');
            }
          },
        },
      },
    });
    harness = createHarness({ plugins: [aliasesPlugin, selectorsPlugin, extensionHooksPlugin] });
    mkdirSync(join(harness.agentDir, 'pi-extensible-workflows'));
    writeFileSync(join(harness.agentDir, 'pi-extensible-workflows', 'settings.json'), JSON.stringify({ modelAliases: { fast: 'a/b:low' }, tools: ['!*', 'read'] }));
  });
  afterEach(async () => {
    await harness.close();
    resetWorkflowRegistry();
  });

  it('answers the segment a launch would start: settings and the alias mapping', async () => {
    const inspected = await harness.engine.inspectPreparation(harness.cwd);
    expect(inspected.settings.settings.modelAliases).toEqual({ fast: 'a/b:low' });
    expect(inspected.pluginState.aliases).toMatchObject({ mapping: { fast: 'a/b:low' } });
    expect(inspected.prepared).toBeUndefined();
    expect(modes).toEqual([]);
  });

  it('prepares agent options through aliases, selectors and extension hooks in inspection mode; no run exists', async () => {
    const inspected = await harness.engine.inspectPreparation(harness.cwd, { model: 'fast', role: 'reviewer', tools: ['bash'] });
    expect(inspected.prepared).toMatchObject({ model: 'a/b:low', label: 'reviewer', skills: ['review'], tools: ['!*', 'read', 'bash'] });
    expect(modes).toEqual(['inspection']);
    expect(existsSync(join(harness.root, 'projects'))).toBe(false);
  });

  it('refuses options a launch would refuse, with the same codes', async () => {
    expect(await rejectionOf(harness.engine.inspectPreparation(harness.cwd, { retries: -1 }))).toMatchObject({ code: 'INVALID_METADATA', message: 'agent options option "retries" is invalid' });
    // A concrete call-level model must include :thinking (spec 1 "Model aliases" rule 5).
    expect(await rejectionOf(harness.engine.inspectPreparation(harness.cwd, { model: 'a/b' }))).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('"a/b"') });
  });
});
