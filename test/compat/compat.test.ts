/**
 * Runs every script of the compatibility suite (cases.ts) through one engine
 * (the kernel with the checkpoints, evidence and worktrees plugins and the
 * echo transport) and checks the outcome it promises: the value, the
 * preflight's refusal (and that no run directory was created), or the
 * failure; and the warnings the run recorded. The `cli` cases also run
 * through the real `wfcli` in test/e2e/script-compat.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowError } from '../../kernel/errors.js';
import { registerWorkflowExtension, resetWorkflowRegistry } from '../../kernel/registry/index.js';
import { worktreesPlugin } from '../../plugins/worktrees/index.js';
import { defaultSessionTools } from '../support/default-session-tools.js';
import { createHarness, type Harness } from '../support/engine-harness.js';
import { COMPAT_CASES, type CompatCase } from './cases.js';

const SCRIPTS = join(import.meta.dirname, 'scripts');

let h: Harness;
beforeAll(() => {
  h = createHarness({ plugins: [worktreesPlugin, defaultSessionTools] });
  // One registered function, so "not defined" lists what is registered.
  registerWorkflowExtension({
    version: '1.0.0',
    headline: 'compat',
    functions: { reviewTask: { description: 'review a task', input: { type: 'object' }, output: { type: 'string' }, run: () => 'reviewed' } },
  });
});
afterAll(async () => {
  resetWorkflowRegistry();
  await h.close();
});

/** Every run directory under the harness's store. */
function runCount(): number {
  const projects = join(h.root, 'projects');
  if (!existsSync(projects)) return 0;
  let count = 0;
  for (const project of readdirSync(projects)) {
    const sessions = join(projects, project, 'sessions');
    for (const session of existsSync(sessions) ? readdirSync(sessions) : []) {
      const runs = join(sessions, session, 'runs');
      count += existsSync(runs) ? readdirSync(runs).filter((name) => !name.startsWith('.')).length : 0;
    }
  }
  return count;
}

function warningsOf(runDir: string): string[] {
  return h.runEvents(runDir).flatMap((entry) => (entry['type'] === 'warning' ? [String(entry['message'])] : []));
}

async function check(testCase: CompatCase): Promise<void> {
  const source = readFileSync(join(SCRIPTS, testCase.file), 'utf8');
  const cwd = h.freshCwd(testCase.file.replace(/\W/g, '-'));
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'init'], { cwd });
  const answers = testCase.answers ?? {};
  h.answer = (prompt) => (Object.hasOwn(answers, prompt) ? answers[prompt]! : { result: `echo:${prompt}` });
  const { expect: expected } = testCase;
  if ('preflight' in expected) {
    const before = runCount();
    const error = await h.engine.launch({ name: 'compat', cwd, script: source, ...(testCase.args === undefined ? {} : { args: testCase.args }) }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error, 'refused before running').toBeInstanceOf(WorkflowError);
    expect((error as WorkflowError).code).toBe('INVALID_SYNTAX');
    for (const fragment of expected.preflight) expect((error as WorkflowError).message).toContain(fragment);
    expect(runCount(), 'no run directory').toBe(before);
    return;
  }
  if (testCase.meta !== undefined) expect(h.engine.inspect(source).meta).toEqual(testCase.meta);
  const handle = await h.engine.launch({ name: 'compat', cwd, script: source, ...(testCase.args === undefined ? {} : { args: testCase.args }) });
  const outcome = await handle.outcome;
  if ('value' in expected) {
    expect(outcome.error).toBeUndefined();
    expect(outcome.value).toEqual(expected.value);
  } else {
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe(expected.failure.code);
    for (const fragment of expected.failure.message) expect(outcome.error?.message).toContain(fragment);
  }
  if (testCase.logs !== undefined) expect(h.runEvents(handle.runDir).flatMap((entry) => (entry['type'] === 'log' ? [entry['message']] : []))).toEqual(testCase.logs);
  const warnings = warningsOf(handle.runDir);
  // One warning per option name the fragments mention; none when they mention none.
  const named = new Set((testCase.warnings ?? []).flatMap((fragment) => /Agent option "([^"]+)"/.exec(fragment)?.[1] ?? []));
  expect(warnings.length, warnings.join('\n')).toBe(named.size);
  for (const fragment of testCase.warnings ?? []) expect(warnings.some((warning) => warning.includes(fragment)), `${fragment}\nin\n${warnings.join('\n')}`).toBe(true);
}

describe('scripts written for other runtimes', () => {
  it('every script file has a case, and every case names its source', () => {
    expect(readdirSync(SCRIPTS).sort()).toEqual(COMPAT_CASES.map((testCase) => testCase.file).sort());
    for (const testCase of COMPAT_CASES) expect(testCase.from.length).toBeGreaterThan(0);
    // Each finding of issue 26 but the guide has cases.
    expect([...new Set(COMPAT_CASES.flatMap((testCase) => testCase.pattern ?? []))].sort()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it.each(COMPAT_CASES.map((testCase) => [testCase.file, testCase] as const))('%s', async (_file, testCase) => {
    await check(testCase);
  });
});
