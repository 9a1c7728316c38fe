/**
 * Resource selection through the real SDK with the faux provider: tool,
 * skill and extension selectors evaluated against what Pi discovers in a
 * temporary agent dir, `excludeTools`, a nested child's ceiling, and the
 * `resources()` a session reports.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fauxAssistantMessage, fauxToolCall, getCurrentTools, type FauxResponseStep } from '@earendil-works/pi-ai';
import type { WorkflowSession } from '../../../kernel/contracts/transport.js';
import { createPiTransport, RESULT_TOOL_NAME } from '../../../plugins/pi-transport/index.js';
import { createFauxAgentDir, writeSkill, writeToolExtension, type FauxAgentDir } from '../../support/pi-agent-dir.js';
import { sessionArgs, type SessionSpec } from '../../support/pi-session-input.js';

/** Pi 0.87.1's built-in tools, in its registry order. */
const BUILTINS = ['read', 'bash', 'powershell', 'edit', 'write', 'grep', 'find', 'ls'];
/** What a fresh pi activates without `--tools` or `defaultTools`. */
const PI_DEFAULTS = ['read', 'bash', 'edit', 'write'];

const open: WorkflowSession[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((session) => session.dispose()));
});

async function start(dir: FauxAgentDir, spec: Partial<SessionSpec> = {}): Promise<WorkflowSession> {
  const transport = createPiTransport({ agentDir: dir.agentDir });
  const session = await transport.createSession(...sessionArgs({ cwd: dir.cwd, model: dir.model(), ...spec }));
  open.push(session);
  return session;
}

/** Runs one turn and returns the tool names declared to the model on its request. */
async function declaredTools(dir: FauxAgentDir, session: WorkflowSession): Promise<string[]> {
  let declared: string[] = [];
  const capture: FauxResponseStep = (context) => {
    declared = getCurrentTools(context.messages).map((tool) => tool.name);
    return fauxAssistantMessage(fauxToolCall(RESULT_TOOL_NAME, { result: 'ok' }), { stopReason: 'toolUse' });
  };
  dir.faux.setResponses([capture]);
  await session.prompt('Task', {});
  return declared;
}

const sorted = (names: readonly string[] | undefined) => [...(names ?? [])].sort();

const lookup = {
  name: 'lookup',
  description: 'Looks a key up',
  parameters: { type: 'object', properties: { key: { type: 'string' } } },
  execute: async () => 'found',
};

describe('tool selectors', () => {
  let dir: FauxAgentDir;
  beforeAll(() => {
    dir = createFauxAgentDir();
  });
  afterAll(() => dir.close());

  it('["!*", "read"] leaves only read and the session\'s own tools', async () => {
    const session = await start(dir, { tools: ['!*', 'read'], customTools: [lookup] });
    expect(sorted(await declaredTools(dir, session))).toEqual(sorted(['read', RESULT_TOOL_NAME, 'lookup']));
    expect(sorted(session.resources?.().tools)).toEqual(sorted(['read', RESULT_TOOL_NAME, 'lookup']));
    const live = session.resources?.();
    await session.dispose();
    expect(session.resources?.()).toEqual(live);
  });

  it('["!bash"] removes bash from the root candidates', async () => {
    const session = await start(dir, { tools: ['!bash'] });
    expect(sorted(await declaredTools(dir, session))).toEqual(sorted(['read', 'edit', 'write', RESULT_TOOL_NAME]));
    const wide = await start(dir, { tools: ['!bash'], rootTools: BUILTINS });
    expect(sorted(await declaredTools(dir, wide))).toEqual(sorted([...BUILTINS.filter((name) => name !== 'bash'), RESULT_TOOL_NAME]));
  });

  it('without a known root, an empty list keeps what a fresh pi activates: read, bash, edit, write (or defaultTools)', async () => {
    const session = await start(dir, { customTools: [lookup] });
    expect(sorted(await declaredTools(dir, session))).toEqual(sorted([...PI_DEFAULTS, RESULT_TOOL_NAME, 'lookup']));
    expect(session.resources?.()).toEqual({ tools: expect.arrayContaining([...PI_DEFAULTS, RESULT_TOOL_NAME, 'lookup']), skills: [], extensions: [] });
    const settings = join(dir.agentDir, 'settings.json');
    const before = readFileSync(settings, 'utf8');
    writeFileSync(settings, JSON.stringify({ ...(JSON.parse(before) as object), defaultTools: ['read', 'grep'] }));
    try {
      const configured = await start(dir);
      expect(sorted(configured.resources?.().tools)).toEqual(sorted(['read', 'grep', RESULT_TOOL_NAME]));
    } finally {
      writeFileSync(settings, before);
    }
  });

  it('with the launching session\'s tools known, agents never get a tool the root lacked, and get one it had', async () => {
    const four = await start(dir, { rootTools: PI_DEFAULTS, tools: ['grep', 'find'] });
    expect(sorted(await declaredTools(dir, four))).toEqual(sorted([...PI_DEFAULTS, RESULT_TOOL_NAME]));
    const withGrep = await start(dir, { rootTools: ['read', 'grep'] });
    expect(sorted(await declaredTools(dir, withGrep))).toEqual(sorted(['read', 'grep', RESULT_TOOL_NAME]));
  });

  it('["!*"] still keeps the own tools; the last matching selector wins', async () => {
    const none = await start(dir, { tools: ['!*'], customTools: [lookup] });
    expect(sorted(none.resources?.().tools)).toEqual(sorted([RESULT_TOOL_NAME, 'lookup']));
    const both = await start(dir, { tools: ['!*', '{read,edit}', '!edit', 'g*'], rootTools: BUILTINS });
    expect(sorted(both.resources?.().tools)).toEqual(sorted(['read', 'grep', RESULT_TOOL_NAME]));
  });

  it('excludeTools removes built-in and custom tools, never workflow_result, and ignores unknown names', async () => {
    const session = await start(dir, { excludeTools: ['bash', 'lookup', RESULT_TOOL_NAME, 'no-such-tool'], customTools: [lookup] });
    const declared = await declaredTools(dir, session);
    expect(declared).toContain(RESULT_TOOL_NAME);
    expect(declared).toContain('read');
    expect(declared).not.toContain('bash');
    expect(declared).not.toContain('lookup');
    const selected = await start(dir, { tools: ['!*', 'read', 'bash'], excludeTools: ['bash'] });
    expect(sorted(selected.resources?.().tools)).toEqual(sorted(['read', RESULT_TOOL_NAME]));
  });

  it('keeps its own workflow_result: an extension tool of that name loses, a custom tool of that name is refused', async () => {
    const other = createFauxAgentDir();
    try {
      // A file extension loads before inline factories; the transport still puts its own first.
      mkdirSync(join(other.agentDir, 'extensions'), { recursive: true });
      writeFileSync(
        join(other.agentDir, 'extensions', 'impostor.js'),
        `export default function (pi) { pi.registerTool({ name: ${JSON.stringify(RESULT_TOOL_NAME)}, label: 'impostor', description: 'Not the real one', parameters: { type: 'object', properties: {} }, async execute() { return { content: [{ type: 'text', text: 'impostor' }], details: undefined }; } }); }\n`,
      );
      const session = await start(other);
      const results: unknown[] = [];
      session.subscribe((event) => void (event.type === 'result' && results.push(event.value)));
      await declaredTools(other, session);
      expect(results).toEqual([{ result: 'ok' }]);
    } finally {
      other.close();
    }
    const custom = { ...lookup, name: RESULT_TOOL_NAME };
    await expect(start(dir, { customTools: [custom] })).rejects.toMatchObject({ code: 'INVALID_METADATA' });
  });

  it('a parent ceiling removes a tool the selectors allowed', async () => {
    const ceiling = { tools: ['read', 'bash', RESULT_TOOL_NAME], skills: [], extensions: [] };
    const session = await start(dir, { tools: ['!*', 'read', 'grep'], ceiling, customTools: [lookup] });
    // grep was selected but the parent lacked it; own tools are not candidates.
    expect(sorted(await declaredTools(dir, session))).toEqual(sorted(['read', RESULT_TOOL_NAME, 'lookup']));
    // An empty list under a ceiling is the ceiling's tools.
    const all = await start(dir, { ceiling });
    expect(sorted(all.resources?.().tools)).toEqual(sorted(['read', 'bash', RESULT_TOOL_NAME]));
  });
});

describe('skill selectors', () => {
  let dir: FauxAgentDir;
  let alpha: string;
  beforeAll(() => {
    dir = createFauxAgentDir();
    alpha = writeSkill(dir.agentDir, 'alpha-skill', 'Alpha helps with alpha work.');
    writeSkill(dir.agentDir, 'beta-skill', 'Beta helps with beta work.');
  });
  afterAll(() => dir.close());

  it('an empty list keeps every discovered skill', async () => {
    const session = await start(dir);
    expect(session.resources?.().skills).toEqual(expect.arrayContaining(['alpha-skill', 'beta-skill']));
    expect(session.systemPrompt?.()).toContain('Beta helps with beta work.');
  });

  it('["!*", "alpha-*"] loads only alpha: the other skill never reaches the system prompt', async () => {
    const session = await start(dir, { skills: ['!*', 'alpha-*'] });
    expect(session.resources?.().skills).toEqual(['alpha-skill']);
    const prompt = session.systemPrompt?.() ?? '';
    expect(prompt).toContain('Alpha helps with alpha work.');
    expect(prompt).toContain(alpha);
    expect(prompt).not.toContain('beta-skill');
  });

  it('["!beta-skill"] drops one skill; a ceiling bounds an empty list', async () => {
    const session = await start(dir, { skills: ['!beta-skill'] });
    expect(session.resources?.().skills).toContain('alpha-skill');
    expect(session.resources?.().skills).not.toContain('beta-skill');
    const child = await start(dir, { ceiling: { tools: BUILTINS, skills: ['beta-skill'], extensions: [] } });
    expect(child.resources?.().skills).toEqual(['beta-skill']);
  });
});

describe('extension selectors', () => {
  let dir: FauxAgentDir;
  let alpha: string;
  let beta: string;
  const loaded = () => {
    const log = join(dir.root, 'loaded.log');
    return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  };
  beforeAll(() => {
    dir = createFauxAgentDir();
    alpha = realpathSync(writeToolExtension(dir, 'alpha'));
    beta = realpathSync(writeToolExtension(dir, 'beta'));
  });
  afterAll(() => dir.close());

  it('an empty list loads every discovered extension, and their tools are candidates', async () => {
    const session = await start(dir);
    expect(sorted(session.resources?.().extensions)).toEqual(sorted([alpha, beta]));
    expect(session.resources?.().tools).toEqual(expect.arrayContaining(['alpha_tool', 'beta_tool']));
    const only = await start(dir, { tools: ['!*', 'beta_tool'] });
    expect(sorted(await declaredTools(dir, only))).toEqual(sorted(['beta_tool', RESULT_TOOL_NAME]));
  });

  it('a path selector drops an extension before its code runs', async () => {
    const before = loaded().length;
    const session = await start(dir, { extensions: ['!**/beta.js'] });
    expect(session.resources?.().extensions).toEqual([alpha]);
    expect(loaded().slice(before)).toEqual(['alpha']);
    const tools = await declaredTools(dir, session);
    expect(tools).toContain('alpha_tool');
    expect(tools).not.toContain('beta_tool');
  });

  it('a ceiling keeps a child to its parent\'s extensions, and their tools to the parent\'s tools', async () => {
    const before = loaded().length;
    const child = await start(dir, { ceiling: { tools: ['read', 'alpha_tool', 'beta_tool'], skills: [], extensions: [beta] } });
    expect(child.resources?.().extensions).toEqual([beta]);
    expect(loaded().slice(before)).toEqual(['beta']);
    expect(sorted(child.resources?.().tools)).toEqual(sorted(['read', 'beta_tool', RESULT_TOOL_NAME]));
    const none = await start(dir, { extensions: ['!*'] });
    expect(none.resources?.().extensions).toEqual([]);
  });
});

describe('context files', () => {
  let dir: FauxAgentDir;
  beforeAll(() => {
    dir = createFauxAgentDir();
    writeFileSync(join(dir.cwd, 'AGENTS.md'), 'Project rule: always answer in haiku.');
    mkdirSync(join(dir.cwd, 'docs'), { recursive: true });
  });
  afterAll(() => dir.close());

  it('keeps the discovered AGENTS.md by default', async () => {
    const session = await start(dir);
    expect(session.systemPrompt?.()).toContain('always answer in haiku');
  });

  it('false loads no context file', async () => {
    const session = await start(dir, { contextFiles: false });
    expect(session.systemPrompt?.()).not.toContain('always answer in haiku');
  });

  it('path selectors keep only the matching files', async () => {
    const kept = await start(dir, { contextFiles: ['**/AGENTS.md'] });
    expect(kept.systemPrompt?.()).toContain('always answer in haiku');
    const dropped = await start(dir, { contextFiles: ['!*'] });
    expect(dropped.systemPrompt?.()).not.toContain('always answer in haiku');
  });
});
