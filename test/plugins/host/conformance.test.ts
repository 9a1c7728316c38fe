/**
 * Contract rows checked inside a real in-process Pi session (SDK, faux
 * provider), where the model calls the workflow tools itself: what agents
 * may read from the catalog, Pi's project trust, extensions' settings
 * validators, launch inspection of registered functions, and the root
 * candidate set of agents' tools.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getCurrentTools } from '@earendil-works/pi-ai';
import { ProjectTrustStore, SessionManager, type ExtensionAPI } from '@earendil-works/pi-coding-agent';
import { registerWorkflowExtension } from '../../../kernel/index.js';
import { callTool, say, submit, toolResults, useHostedSessions } from './pi-host.js';

const suite = useHostedSessions();
const { start } = suite;


/** An extension that registers one function from a module with a file URL as its source. */
const withFunction = (_pi: ExtensionAPI) =>
  registerWorkflowExtension({
    version: '1.2.3',
    headline: 'Secret module',
    source: 'file:///home/someone/private/extension.js',
    functions: { double: { description: 'Doubles n', input: { type: 'object' }, output: { type: 'number' }, run: (input) => (input['n'] as number) * 2 } },
  });

describe('workflow_catalog as the model sees it', () => {
  it('gives a function detail with schemas and the extension headline, never its source', async () => {
    const hosted = await start({ extensions: [withFunction] });
    suite.script.main.push(callTool('workflow_catalog', { name: 'double' }), say('Read.'));
    await hosted.prompt('What does double do?');
    const [detail] = toolResults(hosted.session.messages, 'workflow_catalog');
    expect(detail?.isError).toBe(false);
    expect(detail?.details).toEqual({
      name: 'double',
      function: { name: 'double', description: 'Doubles n', input: { type: 'object' }, output: { type: 'number' }, extension: { headline: 'Secret module', version: '1.2.3' } },
    });
    const text = detail?.content.map((part) => (part.type === 'text' ? part.text : '')).join('') ?? '';
    expect(text).not.toContain('file:');
    expect(text).not.toContain('private');
  });
});

describe('project trust', () => {
  it('refuses launch and retry in a project Pi does not trust, saying how to trust it; workflow_status still answers', async () => {
    const sessionManager = SessionManager.inMemory(suite.dir.cwd);
    const trusted = await start({ trusted: true, sessionManager });
    suite.script.main.push(callTool('workflow', { name: 'boom', script: "throw new Error('boom')", foreground: true }), say('Failed.'));
    await trusted.prompt('Run boom');
    const runId = (toolResults(trusted.session.messages, 'workflow')[0]?.details as { runId: string }).runId;
    await trusted.close();

    // The user told Pi not to trust it.
    const store = new ProjectTrustStore(suite.dir.agentDir);
    store.set(suite.dir.cwd, false);
    try {
      const untrusted = await start({ sessionManager });
      suite.script.main.push(
        callTool('workflow', { name: 'plain', script: 'return 1', foreground: true }),
        callTool('workflow_retry', { runId, expectedState: 'failed' }),
        callTool('workflow_status', { runId }),
        say('Understood.'),
      );
      await untrusted.prompt('Run, retry, check');
      for (const name of ['workflow', 'workflow_retry']) {
        // The session continues the trusted one's transcript: its own result is the last.
        const refused = toolResults(untrusted.session.messages, name).at(-1);
        expect(refused?.isError, name).toBe(true);
        expect(refused?.details, name).toMatchObject({ error: { code: 'CONFIG_ERROR', message: expect.stringMatching(/does not trust the project .*trust\.json.*\/trust.*--approve/) } });
      }
      const [status] = toolResults(untrusted.session.messages, 'workflow_status');
      expect(status?.isError).toBe(false);
      expect(status?.details).toMatchObject({ runId, state: 'failed' });
    } finally {
      store.setMany([{ path: suite.dir.cwd, decision: null }]);
    }
  });
});

describe('validateSettings in a Pi session', () => {
  it('refuses the launch with CONFIG_ERROR naming the extension and the settings file', async () => {
    const folder = join(suite.dir.agentDir, 'pi-extensible-workflows');
    const file = join(folder, 'settings.json');
    mkdirSync(folder, { recursive: true });
    writeFileSync(file, JSON.stringify({ extensionSettings: { '@acme/lint': { strict: 'yes' } } }));
    const validator = (_pi: ExtensionAPI) =>
      registerWorkflowExtension({
        version: '1.0.0',
        headline: 'Acme lint',
        validateSettings: (settings) => {
          if (typeof (settings['@acme/lint'] as { strict?: unknown } | undefined)?.strict !== 'boolean') throw new Error('"strict" must be a boolean');
        },
      });
    try {
      const hosted = await start({ extensions: [validator] });
      suite.script.main.push(callTool('workflow', { name: 'plain', script: 'return 1', foreground: true }), say('Refused.'));
      await hosted.prompt('Run');
      const [refused] = toolResults(hosted.session.messages, 'workflow');
      expect(refused?.isError).toBe(true);
      expect(refused?.details).toMatchObject({ error: { code: 'CONFIG_ERROR', message: expect.stringContaining(file) } });
      expect(JSON.stringify(refused?.details)).toContain('Acme lint');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('launch inspection of registered functions in a Pi session', () => {
  /** `ask` has an agent call whose model lacks its thinking suffix, in a branch that never runs; `outer` only invokes it. */
  const functions = (_pi: ExtensionAPI) =>
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'Inspected',
      functions: {
        ask: {
          description: 'asks rarely',
          input: { type: 'object' },
          output: {},
          run: async (input, context) => (input['never'] === true ? context.agent('x', { model: 'faux/faux-1' }) : 1),
        },
        outer: { description: 'invokes ask', input: { type: 'object' }, output: {}, run: (_input, context) => context.invoke('ask', {}) },
      },
    });

  it('refuses a launch whose called function has a bad static agent option, before anything runs; an invoked function is not inspected', async () => {
    const hosted = await start({ extensions: [functions] });
    suite.script.main.push(
      callTool('workflow', { name: 'direct', script: 'return await ask({})', foreground: true }),
      callTool('workflow', { name: 'indirect', script: 'return await outer({})', foreground: true }),
      say('Done.'),
    );
    await hosted.prompt('Run both');
    const [direct, indirect] = toolResults(hosted.session.messages, 'workflow');
    expect(direct?.isError).toBe(true);
    expect(direct?.details).toMatchObject({ error: { code: 'INVALID_METADATA', message: expect.stringContaining('faux/faux-1') } });
    expect(indirect?.isError).toBe(false);
    expect(indirect?.details).toMatchObject({ state: 'completed', value: 1 });
    expect(suite.script.asked.agents).toBe(0);
  });
});

describe("agents' tools in a Pi session", () => {
  it("are limited to the tools active in the launching session (Pi's default four), plus their own", async () => {
    const hosted = await start();
    const rootTools = hosted.session.getActiveToolNames().filter((name) => !name.startsWith('workflow'));
    let offered: string[] = [];
    suite.script.main.push(callTool('workflow', { name: 'tools', script: "return await agent('Which tools?')", foreground: true }), say('Done.'));
    suite.script.agents.push((context) => {
      offered = getCurrentTools(context.messages).map((tool) => tool.name);
      return submit('ok')(context);
    });
    await hosted.prompt('Run');
    expect([...rootTools].sort()).toEqual(['bash', 'edit', 'read', 'write']);
    expect([...offered].sort()).toEqual(['agent', 'bash', 'edit', 'get_subagent_result', 'read', 'workflow_result', 'write']);
  });
});
