/**
 * Registered `validateSettings` callbacks (spec 2 WorkflowExtension): called
 * with source context for the global file, the trusted project file and the
 * effective settings at every launch, resume and retry, and again for an
 * agent whose preparation hooks changed them. A rejection is CONFIG_ERROR
 * naming the extension and the settings path, and stops the launch or resume
 * before anything changes (spec 1 "Settings errors stop launch or resume").
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WorkflowEngine } from '../../kernel/engine/engine.js';
import { registerWorkflowExtension, resetWorkflowRegistry, settingsPaths, type JsonValue, type SettingsValidationContext, type WorkflowExtension } from '../../kernel/index.js';
import { extensionHooksPlugin } from '../../plugins/extension-hooks/index.js';
import { createHarness, rejectionOf, waitFor } from '../support/engine-harness.js';

const h = createHarness({ plugins: [extensionHooksPlugin] });
afterAll(() => h.close());
afterEach(() => resetWorkflowRegistry());

const seen: { settings: JsonValue; context: SettingsValidationContext }[] = [];

/** Rejects `{ "@acme/lint": { strict: <not a boolean> } }`; remembers every call. */
function registerValidator(extra: Pick<WorkflowExtension, 'agentPreparationHooks'> = {}): void {
  seen.length = 0;
  registerWorkflowExtension({
    version: '1.0.0',
    headline: 'Acme lint',
    validateSettings: (settings, context) => {
      seen.push({ settings: JSON.parse(JSON.stringify(settings)) as JsonValue, context: { ...context } });
      const own = settings['@acme/lint'] as { strict?: unknown } | undefined;
      if (own !== undefined && typeof own.strict !== 'boolean') throw new Error('"strict" must be a boolean');
    },
    ...extra,
  });
}

function writeSettings(path: string, value: object): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
}

describe('validateSettings', () => {
  it('is called for the global file and the effective settings at launch, with source context', async () => {
    registerValidator();
    const cwd = h.freshCwd('global-ok');
    const { globalPath } = settingsPaths(cwd, h.agentDir);
    writeSettings(globalPath, { extensionSettings: { '@acme/lint': { strict: true } } });
    const outcome = await (await h.engine.launch({ name: 'ok', cwd, script: 'return 1' })).outcome;
    expect(outcome.state).toBe('completed');
    expect(seen).toEqual([
      { settings: { '@acme/lint': { strict: true } }, context: { source: 'global', path: globalPath } },
      { settings: { '@acme/lint': { strict: true } }, context: { source: 'effective', path: globalPath } },
    ]);
    writeSettings(globalPath, {});
  });

  it('rejects a bad global value with CONFIG_ERROR naming the extension and the file; no run is created', async () => {
    registerValidator();
    const cwd = h.freshCwd('global-bad');
    const { globalPath } = settingsPaths(cwd, h.agentDir);
    writeSettings(globalPath, { extensionSettings: { '@acme/lint': { strict: 'yes' } } });
    try {
      const error = await rejectionOf(h.engine.launch({ name: 'bad', cwd, script: 'return 1' }));
      expect(error.code).toBe('CONFIG_ERROR');
      expect(error.message).toContain('Acme lint');
      expect(error.message).toContain(globalPath);
      expect(error.message).toContain('"strict" must be a boolean');
      expect(error.details).toMatchObject({ extension: 'Acme lint', path: globalPath, source: 'global' });
      expect(h.engine.list(cwd)).toEqual([]);
    } finally {
      writeSettings(globalPath, {});
    }
  });

  it('sees the trusted project file and names it when the project value is bad', async () => {
    registerValidator();
    const cwd = h.freshCwd('project');
    const { globalPath, projectPath } = settingsPaths(cwd, h.agentDir);
    writeSettings(globalPath, { extensionSettings: { '@acme/lint': { strict: true } } });
    writeSettings(projectPath, { extensionSettings: { '@acme/lint': { strict: 1 } } });
    const trusted = new WorkflowEngine({ kernel: h.kernel, sessionId: 'trusted', root: h.root, agentDir: h.agentDir, home: h.home, projectTrusted: true });
    try {
      const error = await rejectionOf(trusted.launch({ name: 'bad', cwd, script: 'return 1' }));
      expect(error.code).toBe('CONFIG_ERROR');
      expect(error.details).toMatchObject({ extension: 'Acme lint', path: projectPath, source: 'project' });
      expect(seen.map((call) => call.context)).toEqual([
        { source: 'global', path: globalPath },
        { source: 'project', path: projectPath },
      ]);
      // Untrusted, the project file is inactive: never validated.
      seen.length = 0;
      expect((await (await h.engine.launch({ name: 'ok', cwd, script: 'return 1' })).outcome).state).toBe('completed');
      expect(seen.map((call) => call.context.source)).toEqual(['global', 'effective']);
    } finally {
      await trusted.close();
      writeSettings(globalPath, {});
    }
  });

  it('stops a resume when the settings went bad meanwhile, and the run stays where it was', async () => {
    registerValidator();
    const cwd = h.freshCwd('resume');
    const { globalPath } = settingsPaths(cwd, h.agentDir);
    const handle = await h.engine.launch({ name: 'gated', cwd, script: 'return await checkpoint({ name: "gate", prompt: "go?" })' });
    await waitFor(() => h.engine.status(cwd, handle.runId).state === 'awaiting_input');
    const other = h.newEngine({ sessionId: h.sessionId });
    await h.engine.close();
    h.engine = other;
    expect(h.engine.status(cwd, handle.runId).state).toBe('interrupted');
    writeSettings(globalPath, { extensionSettings: { '@acme/lint': { strict: 'no' } } });
    try {
      const error = await rejectionOf(h.engine.resume(cwd, handle.runId));
      expect(error).toMatchObject({ code: 'CONFIG_ERROR', details: { extension: 'Acme lint', path: globalPath } });
      expect(h.engine.status(cwd, handle.runId).state).toBe('interrupted');
    } finally {
      writeSettings(globalPath, {});
    }
  });

  it('validates the settings preparation hooks changed, failing the launch inspection or the agent call', async () => {
    registerValidator({
      agentPreparationHooks: {
        loosen: {
          priority: 1,
          prepare: (configuration, context) => {
            if (context.options['loosen'] === true) configuration.settings = { ...configuration.settings, '@acme/lint': { strict: 'maybe' } };
          },
        },
      },
    });
    const cwd = h.freshCwd('prepared');
    // A static option: launch inspection prepares it and refuses the launch.
    const inspected = await rejectionOf(h.engine.launch({ name: 'static', cwd, script: `return await agent('x', { loosen: true });` }));
    expect(inspected).toMatchObject({ code: 'CONFIG_ERROR', details: { extension: 'Acme lint', source: 'effective' } });
    expect(inspected.message).toContain('preparation hooks changed them');
    // A dynamic option: the agent call fails when it prepares.
    const outcome = await (await h.engine.launch({ name: 'dynamic', cwd, script: `const loosen = args.loosen; return await agent('x', { loosen });`, args: { loosen: true } })).outcome;
    expect(outcome.state).toBe('failed');
    expect(outcome.error).toMatchObject({ code: 'CONFIG_ERROR' });
  });
});
