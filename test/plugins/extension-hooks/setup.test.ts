/**
 * Setup hooks on real Pi sessions (faux provider), through the engine: they
 * narrow tools, skills and extensions; they never widen them (spec 2
 * AgentSetupHook "ceiling", INVALID_METADATA); a custom tool named like a
 * root tool the prepared policy left out is UNKNOWN_TOOL; negations are the
 * final overlay. With the launching session's tools known (as inside Pi)
 * hooks see and narrow concrete names; without, the prepared selectors.
 */
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fauxAssistantMessage, fauxToolCall, getCurrentTools, type FauxResponseStep } from '@earendil-works/pi-ai';
import { createKernel } from '../../../kernel/kernel.js';
import { WorkflowEngine } from '../../../kernel/engine/engine.js';
import { registerWorkflowExtension, resetWorkflowRegistry, type AgentSetup, type CustomToolDefinition } from '../../../kernel/index.js';
import { extensionHooksPlugin } from '../../../plugins/extension-hooks/index.js';
import { createHostPlugin } from '../../../plugins/host/plugin.js';
import { createPiTransportPlugin, RESULT_TOOL_NAME } from '../../../plugins/pi-transport/index.js';
import { createFauxAgentDir, writeSkill, writeToolExtension, type FauxAgentDir } from '../../support/pi-agent-dir.js';

const OWN = ['agent', 'get_subagent_result', RESULT_TOOL_NAME];

let dir: FauxAgentDir;
let alphaExtension: string;
let betaExtension: string;
let setup: (agent: AgentSetup) => void = () => undefined;
/** The tools the agent's first model request offered. */
let seen: { tools: string[] } | undefined;
const engines: WorkflowEngine[] = [];

/** An engine whose root session had `rootTools` (undefined: no launching session, as in a bare engine). */
function engineWith(rootTools: readonly string[] | undefined, name: string): WorkflowEngine {
  const plugins = [extensionHooksPlugin, createPiTransportPlugin({ agentDir: dir.agentDir }), ...(rootTools === undefined ? [] : [createHostPlugin({ rootTools: () => rootTools })])];
  const engine = new WorkflowEngine({ kernel: createKernel({ plugins }), sessionId: name, root: join(dir.root, `runs-${name}`), agentDir: dir.agentDir, home: dir.root });
  engines.push(engine);
  return engine;
}

async function run(engine: WorkflowEngine, options: string) {
  seen = undefined;
  const capture: FauxResponseStep = (context) => {
    seen ??= { tools: getCurrentTools(context.messages).map((tool) => tool.name).sort() };
    return fauxAssistantMessage(fauxToolCall(RESULT_TOOL_NAME, { result: 'ok' }), { stopReason: 'toolUse' });
  };
  dir.faux.setResponses([capture, capture]);
  const handle = await engine.launch({ name: 'setup', cwd: dir.cwd, script: `const options = ${options}; return await agent('task', { model: '${dir.model()}', ...options });` });
  const outcome = await handle.outcome;
  return { ...outcome, runDir: handle.runDir };
}

/** The system prompts the run's agents started with (system-prompts.json bodies). */
function systemPrompts(runDir: string): string {
  const bodies = join(runDir, '.system-prompts');
  return readdirSync(bodies).map((name) => readFileSync(join(bodies, name), 'utf8')).join('\n');
}

/** `sessionInput.tools` is read-only in the contract's type; hooks written in JavaScript assign it all the same. */
function setTools(agent: AgentSetup, tools: string[]): void {
  (agent.sessionInput as { tools: readonly string[] }).tools = tools;
}

const sorted = (names: readonly string[]) => [...names].sort();

beforeAll(() => {
  dir = createFauxAgentDir();
  writeSkill(dir.agentDir, 'alpha-skill', 'Alpha helps with alpha work.');
  writeSkill(dir.agentDir, 'beta-skill', 'Beta helps with beta work.');
  alphaExtension = realpathSync(writeToolExtension(dir, 'alpha'));
  betaExtension = realpathSync(writeToolExtension(dir, 'beta'));
  registerWorkflowExtension({ version: '1.0.0', headline: 'Narrower', agentSetupHooks: { narrow: { setup: (agent) => setup(agent) } } });
});
afterAll(async () => {
  for (const engine of engines) await engine.close();
  resetWorkflowRegistry();
  dir.close();
});
afterEach(() => {
  setup = () => undefined;
});

describe('setup hooks narrow tools', () => {
  it('narrow the default tools to ["read"] inside a known root, and outside one; resourcePolicy.tools too', async () => {
    setup = (agent) => setTools(agent, ['read']);
    for (const engine of [engineWith(['read', 'bash', 'edit', 'write', 'alpha_tool', 'beta_tool'], 'root'), engineWith(undefined, 'bare')]) {
      const outcome = await run(engine, '{}');
      expect(outcome.error).toBeUndefined();
      expect(seen?.tools).toEqual(sorted(['read', ...OWN]));
    }
    setup = (agent) => void (agent.sessionInput.resourcePolicy = { tools: ['!bash', '!edit'] });
    expect((await run(engineWith(undefined, 'policy-tools'), '{}')).error).toBeUndefined();
    expect(seen?.tools).toEqual(sorted(['read', 'write', 'alpha_tool', 'beta_tool', ...OWN]));
  });

  it('see concrete names when the root is known and may drop one; negations are the final overlay', async () => {
    let started: readonly string[] = [];
    setup = (agent) => {
      started = [...agent.sessionInput.tools];
      setTools(agent, ['!bash', 'read', 'bash', 'edit']);
    };
    const outcome = await run(engineWith(['read', 'bash', 'edit', 'write', 'grep'], 'overlay'), `{ tools: ['!grep'] }`);
    expect(outcome.error).toBeUndefined();
    expect(started).toEqual(['read', 'bash', 'edit', 'write']);
    expect(seen?.tools).toEqual(sorted(['read', 'edit', ...OWN]));
  });

  it('refuse a tool the agent was not given: the root lacked it, or the prepared policy left it out', async () => {
    setup = (agent) => setTools(agent, [...agent.sessionInput.tools, 'grep']);
    const rooted = await run(engineWith(['read', 'bash', 'edit', 'write'], 'widen-root'), '{}');
    expect(rooted.state).toBe('failed');
    expect(rooted.error).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('widened the agent\'s tools with "grep"') });
    setup = (agent) => void (agent.sessionInput.resourcePolicy = { tools: ['read', 'bash'] });
    const bare = await run(engineWith(undefined, 'widen-bare'), `{ tools: ['!*', 'read'] }`);
    expect(bare.error).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('"bash"') });
    expect(seen).toBeUndefined();
  });

  it('cannot widen by editing the prepared session, which is frozen', async () => {
    setup = (agent) => void (agent.prepared.tools as string[]).push('grep');
    const outcome = await run(engineWith(undefined, 'frozen'), `{ tools: ['!*', 'read'] }`);
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.message).toMatch(/Setup hook "narrow".*failed/);
  });
});

describe('setup hooks narrow skills and extensions through resourcePolicy', () => {
  it('drop a skill and an extension before they load', async () => {
    setup = (agent) => void (agent.sessionInput.resourcePolicy = { skills: ['!beta-skill'], extensions: ['!**/beta.js'] });
    const outcome = await run(engineWith(undefined, 'policy'), '{}');
    expect(outcome.error).toBeUndefined();
    expect(systemPrompts(outcome.runDir)).toContain('Alpha helps with alpha work.');
    expect(systemPrompts(outcome.runDir)).not.toContain('Beta helps with beta work.');
    expect(seen?.tools).toContain('alpha_tool');
    expect(seen?.tools).not.toContain('beta_tool');
  });

  it('refuse a skill or an extension the prepared selectors left out', async () => {
    const engine = engineWith(undefined, 'policy-widen');
    setup = (agent) => void (agent.sessionInput.resourcePolicy = { skills: ['beta-skill'] });
    const skill = await run(engine, `{ skills: ['!*', 'alpha-skill'] }`);
    expect(skill.error).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('widened the agent\'s skills with "beta-skill"') });
    setup = (agent) => void (agent.sessionInput.resourcePolicy = { extensions: [betaExtension] });
    const extension = await run(engine, `{ extensions: ['!**/beta.js'] }`);
    expect(extension.error).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining(betaExtension) });
    setup = (agent) => void (agent.sessionInput.resourcePolicy = { extensions: [alphaExtension], colors: ['red'] });
    expect((await run(engine, '{}')).error).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('resourcePolicy') });
  });
});

describe('custom tools of setup hooks', () => {
  const tool = (name: string): CustomToolDefinition => ({ name, description: `A custom ${name}`, parameters: { type: 'object', properties: {} }, execute: async () => 'done' });

  it('fail with UNKNOWN_TOOL when named like a root tool the prepared policy left out, excluded ones included', async () => {
    const engine = engineWith(['read', 'bash', 'edit', 'write'], 'custom');
    setup = (agent) => void (agent.sessionInput.customTools = [...(agent.sessionInput.customTools ?? []), tool('bash')]);
    const leftOut = await run(engine, `{ tools: ['!*', 'read'] }`);
    expect(leftOut.error).toMatchObject({ code: 'UNKNOWN_TOOL', message: expect.stringContaining('"bash"') });
    const excluded = await run(engine, `{ excludeTools: ['bash'] }`);
    expect(excluded.error).toMatchObject({ code: 'UNKNOWN_TOOL', message: expect.stringContaining('"bash"') });
  });

  it('are offered under a new name, or in place of a root tool the policy kept', async () => {
    const engine = engineWith(['read', 'bash', 'edit', 'write'], 'custom-ok');
    setup = (agent) => void (agent.sessionInput.customTools = [...(agent.sessionInput.customTools ?? []), tool('lookup'), tool('read')]);
    const outcome = await run(engine, `{ tools: ['!*', 'read'] }`);
    expect(outcome.error).toBeUndefined();
    expect(seen?.tools).toEqual(sorted(['read', 'lookup', ...OWN]));
  });
});
