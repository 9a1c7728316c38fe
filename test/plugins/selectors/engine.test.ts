/**
 * End to end through the WorkflowEngine: settings files, an extension hook at
 * stage 0 and the call's own options are layered by the selectors plugin, and
 * the prepared arrays reach the transport (and the frozen configuration).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  WorkflowEngine,
  createKernel,
  settingsPaths,
  type AgentTransport,
  type KernelPlugin,
  type PreparedAgentSession,
  type SessionProgress,
  type WorkflowSession,
} from '../../../kernel/index.js';
import { selectorsPlugin } from '../../../plugins/selectors/index.js';

/** A transport double that records what `createSession` received and submits `{ result: 'ok' }`. */
function capturingTransport(captured: PreparedAgentSession[]): KernelPlugin {
  const transport: AgentTransport = {
    name: 'capture',
    async createSession(input, context) {
      captured.push(context.prepared);
      const listeners = new Set<(progress: SessionProgress) => void>();
      let state: 'idle' | 'running' | 'disposed' = 'idle';
      const session: WorkflowSession = {
        reference: { transport: 'capture', label: input.sessionLabel },
        state: () => state,
        stats: () => ({ inputTokens: 1, outputTokens: 1, costUsd: 0, turns: 1 }),
        subscribe(listener) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
        async prompt() {
          for (const listener of listeners) listener({ type: 'result', value: { result: 'ok' } });
        },
        async steer() {},
        async abort() {},
        async dispose() {
          state = 'disposed';
        },
      };
      return session;
    },
  };
  return { name: 'capture-transport', apply: (kernel) => kernel.hooks.transport.select.tap('capture-transport', () => transport) };
}

const hookPlugin: KernelPlugin = {
  name: 'role-hook',
  apply(kernel) {
    kernel.hooks.preparation.prepare.tap('role-hook', (preparation) => {
      preparation.skills.push('hook-skill');
      preparation.extensions.push('builtin:mcp');
      preparation.tools.push('hook-tool');
      return preparation;
    });
  },
};

let dir: string;
let cwd: string;
let agentDir: string;
let captured: PreparedAgentSession[];
let engine: WorkflowEngine;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'wf-selectors-engine-')));
  cwd = join(dir, 'project');
  agentDir = join(dir, 'agent');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  const paths = settingsPaths(cwd, agentDir);
  for (const [file, value] of [
    [paths.globalPath, { skills: ['g-skill'], extensions: ['./g-ext.ts'], tools: ['!*', 'g-tool'] }],
    [paths.projectPath, { skills: ['p-skill'], extensions: ['!**/p/**'], tools: ['p-tool'] }],
  ] as const) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(value));
  }
  captured = [];
  const kernel = createKernel({ plugins: [selectorsPlugin, hookPlugin, capturingTransport(captured)] });
  engine = new WorkflowEngine({ kernel, sessionId: 's1', root: join(dir, 'root'), agentDir, home: dir, projectTrusted: true });
});

afterEach(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('selectors through the engine', () => {
  it('the transport receives settings-global, settings-project, hook and call selectors in that order', async () => {
    const handle = await engine.launch({
      name: 'selectors',
      cwd,
      script: `return await agent('hi', { skills: ['call-skill'], tools: ['call-tool'], extensions: ['./c-ext.ts', 'builtin:codemode'], excludeTools: ['bash', 'edit', 'bash'] });`,
    });
    const outcome = await handle.outcome;
    expect(outcome.error).toBeUndefined();
    expect(outcome.state).toBe('completed');
    expect(captured).toHaveLength(1);
    const prepared = captured[0]!;
    expect(prepared.skills).toEqual(['g-skill', 'p-skill', 'hook-skill', 'call-skill']);
    expect(prepared.tools).toEqual(['!*', 'g-tool', 'p-tool', 'hook-tool', 'call-tool']);
    const globalDir = dirname(settingsPaths(cwd, agentDir).globalPath);
    expect(prepared.extensions).toEqual([join(globalDir, 'g-ext.ts'), '!**/p/**', 'builtin:mcp', join(cwd, 'c-ext.ts'), 'builtin:codemode']);
    expect(prepared.excludeTools).toEqual(['bash', 'edit']);

    // The frozen configuration keeps the same arrays and the excludeTools names.
    const snapshot = JSON.parse(readFileSync(join(handle.runDir, 'snapshot.json'), 'utf8')) as { agentConfigurations: Record<string, Record<string, unknown>> };
    const configs = Object.values(snapshot.agentConfigurations);
    expect(configs).toHaveLength(1);
    expect(configs[0]).toMatchObject({ skills: prepared.skills, tools: prepared.tools, extensions: prepared.extensions, excludeTools: ['bash', 'edit'] });
  });

  it('launch inspection rejects a static excludeTools pattern before the run exists', async () => {
    const launch = engine.launch({ name: 'bad', cwd, script: `return await agent('hi', { excludeTools: ['b*'] });` });
    await expect(launch).rejects.toMatchObject({ code: 'INVALID_METADATA' });
    await expect(launch).rejects.toThrow(/b\*/);
    expect(captured).toEqual([]);
    const root = join(dir, 'root');
    expect(existsSync(root) ? readdirSync(root, { recursive: true }).filter((entry) => String(entry).endsWith('snapshot.json')) : []).toEqual([]);
  });

  it('a dynamic excludeTools with workflow_result fails the agent call at execution', async () => {
    const handle = await engine.launch({
      name: 'dynamic',
      cwd,
      script: `const names = ['workflow' + '_result']; return await agent('hi', { excludeTools: names });`,
    });
    const outcome = await handle.outcome;
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('INVALID_METADATA');
    expect(outcome.error?.message).toContain('workflow_result');
    expect(captured).toEqual([]);
  });
});
