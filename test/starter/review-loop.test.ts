/**
 * The starter through WorkflowEngine (aliases plugin, echo transport, a
 * model inventory naming the launching session's model): reviewLoop's loop,
 * its phases and schemas, replay on retry, and the five dynamic aliases with
 * a static alias shadowing one (its resolver is then not called). Real Pi
 * sessions: test/e2e/starter.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkflowEngine, createKernel, freezeWorkflowRegistry, registerWorkflowExtension, resetWorkflowRegistry, type JsonValue, type KernelPlugin } from '../../kernel/index.js';
import { aliasesPlugin } from '../../plugins/aliases/index.js';
import starter, { STARTER_ALIAS_NAMES, STARTER_HEADLINE, reviewLoop, starterExtension } from '../../starter/index.js';
import { echoTransportPlugin, type EchoCall } from '../support/echo-transport.js';
import { readJsonLines, rejectionOf, thrownBy, writeGlobalSettings } from '../support/engine-harness.js';

const ROOT_MODEL = 'faux/session-model:medium';
const dir = mkdtempSync(join(tmpdir(), 'wf-starter-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
let calls: EchoCall[];
let answer: (prompt: string) => JsonValue;
let rootModel: string | undefined;
let engine: WorkflowEngine;
let cwd: string;
let agentDir: string;

const inventoryPlugin: KernelPlugin = {
  name: 'test-inventory',
  apply: (kernel) => kernel.hooks.preparation.models.tap('test-inventory', (inventory) => (rootModel === undefined ? inventory : { ...inventory, rootModel })),
};

/** Developer turns answer `work <n>`; reviews fail until `passAt`. */
function scripted(passAt: number): (prompt: string) => JsonValue {
  let developerTurns = 0;
  let reviews = 0;
  return (prompt) => {
    if (prompt.startsWith('Review the change')) {
      reviews += 1;
      return reviews >= passAt ? { passed: true, feedback: 'Looks right.' } : { passed: false, feedback: `Fix problem ${reviews}.` };
    }
    developerTurns += 1;
    return { result: `work ${developerTurns}` };
  };
}

beforeEach(() => {
  resetWorkflowRegistry();
  starter();
  calls = [];
  rootModel = ROOT_MODEL;
  answer = scripted(2);
  const base = join(dir, `case-${++counter}`);
  cwd = join(base, 'project');
  agentDir = join(base, 'agent');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  const kernel = createKernel({ plugins: [aliasesPlugin, inventoryPlugin, echoTransportPlugin({ calls, answer: (prompt) => answer(prompt) })] });
  engine = new WorkflowEngine({ kernel, sessionId: 's1', root: join(base, 'runs'), agentDir, home: base });
});
afterEach(async () => {
  await engine.close();
  resetWorkflowRegistry();
});

async function run(script: string) {
  const handle = await engine.launch({ name: 'review', cwd, script });
  return { ...(await handle.outcome), runDir: handle.runDir, runId: handle.runId };
}

const snapshotOf = (runDir: string) => JSON.parse(readFileSync(join(runDir, 'snapshot.json'), 'utf8')) as { agents: Record<string, { label: string; phase?: string }>; plugins: Record<string, unknown> };

describe('reviewLoop', () => {
  it('keeps one developer session across turns and starts a fresh reviewer per iteration, until a review passes', async () => {
    const outcome = await run(`return await reviewLoop({ task: 'Add a greeting' });`);
    expect(outcome.error).toBeUndefined();
    expect(outcome.value).toEqual({ passed: true, iterations: 2, result: 'work 2', review: { passed: true, feedback: 'Looks right.' } });
    const developer = calls.filter((call) => call.label === 'developer');
    const reviewers = calls.filter((call) => call.label === 'reviewer');
    expect(developer.map((call) => call.turn)).toEqual([1, 2]);
    expect(new Set(developer.map((call) => call.session)).size).toBe(1);
    expect(reviewers.map((call) => call.turn)).toEqual([1, 1]);
    expect(new Set(reviewers.map((call) => call.session)).size).toBe(2);
    expect(calls.map((call) => call.label)).toEqual(['developer', 'reviewer', 'developer', 'reviewer']);
    // The task goes to the developer, the feedback of the failed review comes back, and the reviewer sees the summary.
    expect(developer[0]?.prompt).toMatch(/^Add a greeting\n/);
    expect(developer[1]?.prompt).toContain('Review 1 of at most 5 did not pass the work');
    expect(developer[1]?.prompt).toContain('Fix problem 1.');
    expect(reviewers[1]?.prompt).toContain('<task>\nAdd a greeting\n</task>');
    expect(reviewers[1]?.prompt).toContain('<summary>\nwork 2\n</summary>');
    // One phase per iteration, and one log line per review.
    const agents = Object.values(snapshotOf(outcome.runDir).agents);
    expect(agents.map((agent) => `${agent.label}@${agent.phase}`).sort()).toEqual(['developer@reviewLoop › iteration 1', 'developer@reviewLoop › iteration 2', 'reviewer@reviewLoop › iteration 1', 'reviewer@reviewLoop › iteration 2']);
    const logs = readJsonLines(join(outcome.runDir, 'events.jsonl')).filter((event) => event['type'] === 'log');
    expect(logs.map((event) => event['message'])).toEqual(['review 1: not passed (Fix problem 1.)', 'review 2: passed (Looks right.)']);
  });

  it('stops after maxIterations failed reviews and reports the last review', async () => {
    answer = scripted(99);
    const outcome = await run(`return await reviewLoop({ task: 'Hard task', maxIterations: 3, criteria: 'Has tests' });`);
    expect(outcome.value).toEqual({ passed: false, iterations: 3, result: 'work 3', review: { passed: false, feedback: 'Fix problem 3.' } });
    expect(calls.filter((call) => call.label === 'reviewer')[0]?.prompt).toContain('<criteria>\nHas tests\n</criteria>');
  });

  it('asks for the developer-model and reviewer-model aliases, which resolve to the launching session model', async () => {
    const outcome = await run(`return await reviewLoop({ task: 'Add a greeting' });`);
    expect(calls.map((call) => call.model)).toEqual([ROOT_MODEL, ROOT_MODEL, ROOT_MODEL, ROOT_MODEL]);
    const aliases = snapshotOf(outcome.runDir).plugins['aliases'] as { mapping: Record<string, string>; sources: Record<string, unknown> };
    for (const name of STARTER_ALIAS_NAMES) {
      expect(aliases.mapping[name]).toBe(ROOT_MODEL);
      expect(aliases.sources[name]).toEqual({ kind: 'dynamic', extension: { headline: STARTER_HEADLINE, version: '1.0.0' } });
    }
  });

  it('lets a static reviewer-model in settings win over the dynamic alias', async () => {
    const settingsPath = writeGlobalSettings(agentDir, { modelAliases: { 'reviewer-model': 'faux/strict-model:high' } });
    const outcome = await run(`return await reviewLoop({ task: 'Add a greeting' });`);
    expect(calls.map((call) => `${call.label}:${call.model}`)).toEqual([
      `developer:${ROOT_MODEL}`,
      'reviewer:faux/strict-model:high',
      `developer:${ROOT_MODEL}`,
      'reviewer:faux/strict-model:high',
    ]);
    const aliases = snapshotOf(outcome.runDir).plugins['aliases'] as { sources: Record<string, unknown> };
    expect(aliases.sources['reviewer-model']).toEqual({ kind: 'static', settingsPath });
  });

  it('never calls a shadowed resolver: without a session model only the aliases settings leave dynamic fail', async () => {
    rootModel = undefined;
    writeGlobalSettings(agentDir, { modelAliases: { 'reviewer-model': 'faux/strict-model:high' } });
    const error = await rejectionOf(run(`return 1;`));
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toContain('Model alias "developer-model"');
    expect(error.message).toContain(`registered by extension "${STARTER_HEADLINE}"`);
    expect(error.message).toContain("this session has none; set \"developer-model\" in the modelAliases");
    // With all five defined statically no resolver runs, so nothing needs a session model.
    writeGlobalSettings(agentDir, { modelAliases: Object.fromEntries(STARTER_ALIAS_NAMES.map((name) => [name, 'faux/fixed:low'])) });
    expect(await run(`return await reviewLoop({ task: 'Add a greeting' });`)).toMatchObject({ state: 'completed', value: { passed: true, iterations: 2 } });
    expect(new Set(calls.map((call) => call.model))).toEqual(new Set(['faux/fixed:low']));
  });

  it('forwards developer and reviewer options over its defaults', async () => {
    await run(`return await reviewLoop({ task: 'T', developer: { model: 'faux/dev:low', label: 'coder' }, reviewer: { model: 'faux/rev:low' } });`);
    expect(calls.map((call) => `${call.label}:${call.model}`)).toEqual(['coder:faux/dev:low', 'reviewer:faux/rev:low', 'coder:faux/dev:low', 'reviewer:faux/rev:low']);
  });

  it.each([
    ['no task', `{}`, "must have required property 'task'"],
    ['an unknown key', `{ task: 'T', rounds: 2 }`, 'has unknown key "rounds"'],
    ['zero iterations', `{ task: 'T', maxIterations: 0 }`, '/maxIterations must be >= 1'],
    ['a reviewer outputSchema', `{ task: 'T', reviewer: { outputSchema: {} } }`, '/reviewer/outputSchema'],
    ['a developer handle name', `{ task: 'T', developer: { name: 'other' } }`, '/developer/name'],
  ])('refuses input with %s (RESULT_INVALID) before any agent runs', async (_what, input, problem) => {
    const outcome = await run(`return await reviewLoop(${input});`);
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('RESULT_INVALID');
    expect(outcome.error?.message).toContain(problem);
    expect(calls).toEqual([]);
  });

  it('replays the finished iterations on retry and reruns only the unfinished review', async () => {
    const base = scripted(2);
    let reviews = 0;
    answer = (prompt) => {
      if (prompt.startsWith('Review the change') && ++reviews === 2) throw new Error('provider down');
      return base(prompt);
    };
    const failed = await run(`return await reviewLoop({ task: 'Add a greeting' });`);
    expect(failed.state).toBe('failed');
    expect(calls.map((call) => call.label)).toEqual(['developer', 'reviewer', 'developer', 'reviewer']);
    answer = () => ({ passed: true, feedback: 'Fine now.' });
    const retried = await engine.retry(cwd, failed.runId);
    expect(await retried.outcome).toMatchObject({ state: 'completed', value: { passed: true, iterations: 2, result: 'work 2', review: { feedback: 'Fine now.' } } });
    expect(calls.map((call) => call.label)).toEqual(['developer', 'reviewer', 'developer', 'reviewer', 'reviewer']);
  });
});

describe('the starter registration', () => {
  it('registers reviewLoop and the five aliases; its factory running again (a workflow agent session) is a reload', () => {
    expect(Object.keys(starterExtension.functions ?? {})).toEqual(['reviewLoop']);
    expect(Object.keys(starterExtension.modelAliases ?? {}).sort()).toEqual([...STARTER_ALIAS_NAMES].sort());
    freezeWorkflowRegistry();
    starter();
    expect(starterExtension.source).toMatch(/^file:.*starter\/index\.ts$/);
  });

  it('refuses a second reviewLoop with GLOBAL_COLLISION naming the starter', () => {
    const error = thrownBy(() => registerWorkflowExtension({ version: '1.0.0', headline: 'Replacement', functions: { reviewLoop } }));
    expect(error.code).toBe('GLOBAL_COLLISION');
    expect(error.message).toContain(`function "reviewLoop" is already registered by extension "${STARTER_HEADLINE}"`);
  });
});
