/**
 * Literal agent options are checked at launch whatever else the call
 * computes (issue 36 item 5): the preflight gives the literal properties of
 * a partly computed options object and what is computed, and launch
 * inspection prepares them, so `agent(p, { label: `review ${i}`, model:
 * 'haiku' })` is refused before the work in front of it. A property a later
 * spread or computed key may replace is not checked; extension hooks never
 * see a partial object, and a role's model is not taken for a model the call
 * computes.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WorkflowEngine, createKernel, registerWorkflowExtension, resetWorkflowRegistry, type JsonValue } from '../../kernel/index.js';
import { preflight } from '../../kernel/preflight/index.js';
import { aliasesPlugin } from '../../plugins/aliases/index.js';
import { extensionHooksPlugin } from '../../plugins/extension-hooks/index.js';
import { selectorsPlugin } from '../../plugins/selectors/index.js';
import { createRolesPlugin, globalRolesDir } from '../../roles/index.js';
import { echoTransportPlugin, type EchoCall } from '../support/echo-transport.js';
import { rejectionOf, writeGlobalSettings } from '../support/engine-harness.js';
import { PREFLIGHT_OPTIONS } from '../support/preflight.js';

const staticOptions = (source: string) => preflight(source, PREFLIGHT_OPTIONS).staticAgentOptions;

describe('preflight: the literal part of partly computed options', () => {
  it('keeps the literal properties and names the computed ones', () => {
    expect(staticOptions('for (const i of [1, 2]) await agent("p", { label: `review ${i}`, model: "haiku", tools: ["read"] })')).toEqual([
      { kind: 'agent', options: { model: 'haiku', tools: ['read'] }, sites: ['1:31'], computed: { keys: ['label'], open: false } },
    ]);
    // A shorthand, a method and a getter compute their key too; a literal value given later wins.
    expect(staticOptions('const role = "r";\nawait agent("p", { role, model: "m", get label() { return "x" }, retries: args.n, retries: 1 })')[0]).toMatchObject({
      options: { model: 'm', retries: 1 },
      computed: { keys: ['role', 'label'], open: false },
    });
  });

  it('drops what a spread, a computed key or __proto__ may replace, and keeps what comes after', () => {
    expect(staticOptions('const base = {};\nawait agent("p", { model: "early", ...base, role: "reviewer" })')[0]).toMatchObject({
      options: { role: 'reviewer' },
      computed: { keys: [], open: true },
    });
    expect(staticOptions('const k = "model";\nawait agent("p", { model: "early", [k]: "x" })')).toEqual([]);
    expect(staticOptions('await agent("p", { __proto__: {}, model: "m" })')[0]).toMatchObject({ options: { model: 'm' }, computed: { open: true } });
  });

  it('keeps a whole literal object whole, and a partial one apart from an equal whole one', () => {
    const groups = staticOptions('await agent("a", { model: "m" });\nawait agent("b", { model: "m", label: `x${args}` });\nawait agent("c", { label: `y${args}`, model: "m" })');
    expect(groups).toEqual([
      { kind: 'agent', options: { model: 'm' }, sites: ['1:7'] },
      { kind: 'agent', options: { model: 'm' }, sites: ['2:7', '3:7'], computed: { keys: ['label'], open: false } },
    ]);
  });

  it('reads partly computed agent.create options when the handle sends without options', () => {
    expect(staticOptions('const h = agent.create({ name: `dev-${args.n}`, model: "m" });\nawait h.send("go")')).toEqual([
      { kind: 'create', options: { model: 'm' }, sites: ['1:11'], computed: { keys: ['name'], open: false } },
    ]);
  });
});

const dir = mkdtempSync(join(tmpdir(), 'wf-partial-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const engines: WorkflowEngine[] = [];
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
  resetWorkflowRegistry();
});

function setup(): { engine: WorkflowEngine; cwd: string; agentDir: string; calls: EchoCall[]; launch(script: string): ReturnType<WorkflowEngine['launch']> } {
  const base = join(dir, `case-${++counter}`);
  const cwd = join(base, 'project');
  const agentDir = join(base, 'agent');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  const calls: EchoCall[] = [];
  const plugins = [selectorsPlugin, aliasesPlugin, createRolesPlugin({ contributions: () => [] }), extensionHooksPlugin];
  const kernel = createKernel({ plugins: [...plugins, echoTransportPlugin({ calls, answer: (prompt): JsonValue => ({ result: `echo:${prompt}` }) })] });
  const engine = new WorkflowEngine({ kernel, sessionId: 's1', root: join(base, 'runs'), agentDir, home: base });
  engines.push(engine);
  return { engine, cwd, agentDir, calls, launch: (script) => engine.launch({ name: 'partial', cwd, script }) };
}

const LOOP = (options: string) => `await shell('touch side-effect');\nconst out = [];\nfor (const i of [1, 2]) out.push(await agent('review ' + i, ${options}));\nreturn out;`;

describe('launch inspection of partly computed options', () => {
  it('refuses an unknown literal model before any work, though the label is computed', async () => {
    const s = setup();
    writeGlobalSettings(s.agentDir, { modelAliases: { cheap: 'faux/small:low' } });
    const error = await rejectionOf(s.launch(LOOP('{ label: `review ${i}`, model: "haiku" }')));
    expect(error.code).toBe('UNKNOWN_MODEL');
    expect(error.message).toContain('"haiku"');
    expect(existsSync(join(s.cwd, 'side-effect'))).toBe(false);
    expect(s.engine.list(s.cwd)).toEqual([]);
    expect(s.calls).toEqual([]);
  });

  it('refuses an unknown literal role, a literal core option of the wrong type and a bad literal selector the same way', async () => {
    const s = setup();
    const role = await rejectionOf(s.launch(LOOP('{ label: `r${i}`, role: "nobody" }')));
    expect(role).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('Unknown role "nobody"') });
    const retries = await rejectionOf(s.launch(LOOP('{ label: `r${i}`, retries: 99 }')));
    expect(retries).toMatchObject({ code: 'INVALID_METADATA', message: 'agent at 3:40 option "retries" is invalid' });
    const excluded = await rejectionOf(s.launch(LOOP('{ label: `r${i}`, excludeTools: ["workflow_result"] }')));
    expect(excluded.code).toBe('INVALID_METADATA');
    expect(existsSync(join(s.cwd, 'side-effect'))).toBe(false);
  });

  it('runs a partly computed call whose literal part is fine', async () => {
    const s = setup();
    writeGlobalSettings(s.agentDir, { modelAliases: { cheap: 'faux/small:low' } });
    const handle = await s.launch(LOOP('{ label: `review ${i}`, model: "cheap" }'));
    expect(await handle.outcome).toMatchObject({ state: 'completed', value: ['echo:review 1', 'echo:review 2'] });
    expect(s.calls.map((call) => [call.label, call.model])).toEqual([
      ['review 1', 'faux/small:low'],
      ['review 2', 'faux/small:low'],
    ]);
  });

  it('does not check a literal the script may replace, nor a role model the call computes over', async () => {
    const s = setup();
    writeGlobalSettings(s.agentDir, { modelAliases: { cheap: 'faux/small:low' } });
    mkdirSync(globalRolesDir(s.agentDir), { recursive: true });
    // The role's own model is broken, but every call gives its own.
    writeFileSync(join(globalRolesDir(s.agentDir), 'checker.md'), '---\ndescription: Checks\nmodel: nowhere\n---\nCheck.\n');
    const script = `const pick = { model: 'cheap' };\nconst m = 'cheap';\nconst a = await agent('a', { model: 'haiku', ...pick });\nconst b = await agent('b', { role: 'checker', model: m });\nreturn [a, b];`;
    const outcome = await (await s.launch(script)).outcome;
    expect(outcome).toMatchObject({ state: 'completed', value: ['echo:a', 'echo:b'] });
  });

  it('keeps partly computed options from extension hooks, whose schema could require what the call computes', async () => {
    const s = setup();
    const seen: unknown[] = [];
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'Strict',
      agentPreparationHooks: {
        strict: { priority: 1, optionsSchema: { type: 'object', required: ['ticket'] }, prepare: (_configuration, context) => void seen.push(context.options) },
      },
    });
    const handle = await s.launch(`return await agent('x', { ticket: \`T-\${args}\`, tools: ['read'] });`);
    expect(await handle.outcome).toMatchObject({ state: 'completed', value: 'echo:x' });
    // The run's own preparation only: the launch's inspection did not hand them the literal part.
    expect(seen).toEqual([{ ticket: 'T-null', tools: ['read'] }]);
    // Hooks may rewrite a model, so with hooks registered a partly computed call's model is resolved when it runs.
    const later = await (await s.launch(`return await agent('y', { ticket: \`T-\${args}\`, model: 'haiku' });`)).outcome;
    expect(later).toMatchObject({ state: 'failed', error: { code: 'UNKNOWN_MODEL' } });
  });
});
