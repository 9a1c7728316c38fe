/**
 * The `role` option through WorkflowEngine with the selectors, aliases and
 * roles plugins and the echo transport: what a role puts into the frozen
 * agent configuration, per-call options overriding it, launch inspection
 * refusing an unknown role or a broken role set before any effect, frozen
 * configurations kept on retry, and `role` meaning nothing without the
 * roles plugin.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WorkflowEngine, createKernel, type JsonValue, type KernelPlugin } from '../../kernel/index.js';
import { aliasesPlugin } from '../../plugins/aliases/index.js';
import { selectorsPlugin } from '../../plugins/selectors/index.js';
import { createRolesPlugin, globalRolesDir } from '../../roles/index.js';
import { echoTransportPlugin, type EchoCall } from '../support/echo-transport.js';
import { rejectionOf, writeGlobalSettings } from '../support/engine-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'wf-roles-engine-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
const engines: WorkflowEngine[] = [];
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
});

interface Setup {
  readonly engine: WorkflowEngine;
  readonly cwd: string;
  readonly agentDir: string;
  readonly calls: EchoCall[];
  answer: ((prompt: string) => JsonValue) | undefined;
  run(script: string): Promise<{ state: string; value?: JsonValue; error?: { code: string; message: string }; runDir: string; runId: string }>;
  configs(runDir: string): Record<string, Record<string, unknown>>;
}

function setup(plugins: readonly KernelPlugin[] = [selectorsPlugin, aliasesPlugin, createRolesPlugin({ contributions: () => [] })]): Setup {
  const base = join(dir, `case-${++counter}`);
  const cwd = join(base, 'project');
  const agentDir = join(base, 'agent');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  const calls: EchoCall[] = [];
  // eslint-disable-next-line prefer-const
  let current: Setup;
  const kernel = createKernel({ plugins: [...plugins, echoTransportPlugin({ calls, answer: (prompt) => current.answer?.(prompt) ?? { result: `echo:${prompt}` } })] });
  const engine = new WorkflowEngine({ kernel, sessionId: 's1', root: join(base, 'runs'), agentDir, home: base });
  engines.push(engine);
  current = {
    engine,
    cwd,
    agentDir,
    calls,
    answer: undefined,
    async run(script) {
      const handle = await engine.launch({ name: 'roles', cwd, script });
      return { ...(await handle.outcome), runDir: handle.runDir, runId: handle.runId };
    },
    configs: (runDir) => (JSON.parse(readFileSync(join(runDir, 'snapshot.json'), 'utf8')) as { agentConfigurations: Record<string, Record<string, unknown>> }).agentConfigurations,
  };
  return current;
}

function writeRole(agentDir: string, name: string, frontMatter: string, body = `Guidance of ${name}.`): string {
  mkdirSync(globalRolesDir(agentDir), { recursive: true });
  const file = join(globalRolesDir(agentDir), `${name}.md`);
  writeFileSync(file, `---\n${frontMatter}\n---\n${body}\n`);
  return file;
}

const only = (configs: Record<string, Record<string, unknown>>) => {
  const values = Object.values(configs);
  expect(values).toHaveLength(1);
  return values[0] ?? {};
};

describe('the role option through the engine', () => {
  it('layers the role after the settings and before the call, resolves its model alias, labels the agent and appends its guidance', async () => {
    const s = setup();
    writeGlobalSettings(s.agentDir, { modelAliases: { cheap: 'faux/small:low' }, tools: ['!bash'], skills: ['!legacy'] });
    writeRole(s.agentDir, 'checker', 'description: Checks\nmodel: cheap\ntools: ["!*", read, bash]\nskills: [check-*]\ncontextFiles: false');
    const outcome = await s.run(`return await agent('look', { role: 'checker', tools: ['!bash'] });`);
    expect(outcome).toMatchObject({ state: 'completed', value: 'echo:look' });
    expect(s.calls.map((call) => [call.model, call.label])).toEqual([['faux/small:low', 'checker']]);
    expect(only(s.configs(outcome.runDir))).toMatchObject({
      model: 'faux/small:low',
      label: 'checker',
      tools: ['!bash', '!*', 'read', 'bash', '!bash'],
      skills: ['!legacy', 'check-*'],
      contextFiles: false,
      systemPromptAppend: 'Guidance of checker.',
    });
  });

  it('lets every per-call option override the role', async () => {
    const s = setup();
    writeGlobalSettings(s.agentDir, { modelAliases: { cheap: 'faux/small:low' } });
    writeRole(s.agentDir, 'checker', 'description: Checks\nmodel: cheap\ncontextFiles: false');
    const outcome = await s.run(`return await agent('look', { role: 'checker', model: 'faux/big:high', label: 'mine', contextFiles: true });`);
    expect(outcome.state).toBe('completed');
    expect(only(s.configs(outcome.runDir))).toMatchObject({ model: 'faux/big:high', label: 'mine', contextFiles: true });
  });

  it('replaces the system prompt with overrideSystemPrompt, and a handle keeps its name as label', async () => {
    const s = setup();
    writeRole(s.agentDir, 'solo', 'description: Alone\noverrideSystemPrompt: true', 'You are alone.');
    const outcome = await s.run(`const dev = agent.create({ name: 'dev', role: 'solo' }); return await dev.send('go');`);
    expect(outcome.state).toBe('completed');
    const config = only(s.configs(outcome.runDir));
    expect(config).toMatchObject({ label: 'dev', systemPrompt: 'You are alone.' });
    expect(config).not.toHaveProperty('systemPromptAppend');
  });

  it('gives the fallback roles without any role file: guidance only, no model', async () => {
    const s = setup();
    const outcome = await s.run(`return await agent('look', { role: 'reviewer' });`);
    expect(outcome.state).toBe('completed');
    const config = only(s.configs(outcome.runDir));
    // The fallback reviewer is read-only (issue 29): no edit or write.
    expect(config).toMatchObject({ model: '', label: 'reviewer', tools: ['!edit', '!write'] });
    expect(config['systemPromptAppend']).toContain('You are a reviewer.');
  });

  it('rejects an unknown role at launch, before any effect, listing the roles', async () => {
    const s = setup();
    const error = await rejectionOf(s.run(`await shell('touch side-effect'); return await agent('x', { role: 'nobody' });`));
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toContain('Unknown role "nobody"; the roles are developer, oracle, researcher, reviewer, scout');
    // And how to define it: the file to write.
    expect(error.message).toContain(`To use "nobody", define it in ${join(s.agentDir, 'pi-extensible-workflows', 'roles', 'nobody.md')}`);
    expect(existsSync(join(s.cwd, 'side-effect'))).toBe(false);
    expect(s.engine.list(s.cwd)).toEqual([]);
  });

  it('fails closed: an invalid role file refuses every launch that uses a role, naming the file; calls without a role still run', async () => {
    const s = setup();
    const file = writeRole(s.agentDir, 'typo', 'description: x\ntool: [read]');
    const error = await rejectionOf(s.run(`await shell('touch side-effect'); return await agent('x', { role: 'reviewer' });`));
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toContain(`${file}: invalid front matter: (root) has unknown key "tool"`);
    expect(existsSync(join(s.cwd, 'side-effect'))).toBe(false);
    // A role named at run time (not a static literal) fails the agent call instead.
    const dynamic = await s.run(`const role = ['reviewer'][0]; return await agent('x', { role });`);
    expect(dynamic).toMatchObject({ state: 'failed', error: { code: 'CONFIG_ERROR' } });
    expect(await s.run(`return await agent('x');`)).toMatchObject({ state: 'completed', value: 'echo:x' });
  });

  it('keeps a prepared configuration on retry although the role changed; a new agent gets the new role', async () => {
    const s = setup();
    writeRole(s.agentDir, 'checker', 'description: v1\ntools: ["!*", read]', 'Version one.');
    s.answer = (prompt) => {
      if (prompt === 'first') throw new Error('provider down');
      return { result: `echo:${prompt}` };
    };
    const failed = await s.run(`const a = await agent('first', { role: 'checker' }); const b = await agent('second', { role: 'checker' }); return [a, b];`);
    expect(failed.state).toBe('failed');
    writeRole(s.agentDir, 'checker', 'description: v2\ntools: ["!*", grep]', 'Version two.');
    s.answer = undefined;
    const retried = await s.engine.retry(s.cwd, failed.runId);
    expect(await retried.outcome).toMatchObject({ state: 'completed', value: ['echo:first', 'echo:second'] });
    const configs = Object.values(s.configs(retried.runDir));
    expect(configs.map((config) => [config['tools'], config['systemPromptAppend']])).toEqual([
      [['!*', 'read'], 'Version one.'],
      [['!*', 'grep'], 'Version two.'],
    ]);
  });

  it('without the roles plugin, role is an ignored extension key and nothing breaks', async () => {
    const s = setup([selectorsPlugin, aliasesPlugin]);
    writeRole(s.agentDir, 'checker', 'description: x\ntool: [read]');
    const outcome = await s.run(`return await agent('look', { role: 'checker' });`);
    expect(outcome).toMatchObject({ state: 'completed', value: 'echo:look' });
    const config = only(s.configs(outcome.runDir));
    expect(config).toMatchObject({ tools: [] });
    expect(config).not.toHaveProperty('systemPromptAppend');
  });

  it('without the selectors plugin, the role layer still comes before the call selectors', async () => {
    const s = setup([aliasesPlugin, createRolesPlugin({ contributions: () => [] })]);
    writeRole(s.agentDir, 'checker', 'description: x\ntools: ["!*", read]');
    const outcome = await s.run(`return await agent('look', { role: 'checker', tools: ['bash'] });`);
    expect(outcome.state).toBe('completed');
    expect(only(s.configs(outcome.runDir))).toMatchObject({ tools: ['!*', 'read', 'bash'] });
  });
});
