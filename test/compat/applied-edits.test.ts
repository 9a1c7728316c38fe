/**
 * The edits our refusals propose lead to scripts that run as their authors
 * meant (issue 36): each case launches a script of the compatibility suite,
 * takes the call the refusal says to write, puts it in place of the refused
 * call, and runs the result, whose value must be what the peer runtime the
 * script was written for would return.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAst } from 'rollup/parseAst';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowError } from '../../kernel/index.js';
import type { JsonValue } from '../../kernel/json.js';
import { createHarness, type Harness } from '../support/engine-harness.js';

const SCRIPTS = join(import.meta.dirname, 'scripts');

interface EditCase {
  readonly file: string;
  /** The refused call's callee. */
  readonly callee: 'agent' | 'parallel' | 'pipeline';
  /** What the script's author meant, by the semantics of the runtime it was written for. */
  readonly value: JsonValue;
  readonly args?: JsonValue;
}

const CASES: readonly EditCase[] = [
  {
    // pi-dynamic-workflows: stages get (previous value, original item, index).
    file: 'qs-pipeline-item-index.js',
    callee: 'pipeline',
    value: ['auth', 'billing'].map((id, index) => `echo:Review ${id} (#${index}):\necho:Find the entry points of ${id}.`),
  },
  {
    // Claude Code: stages get (previous value, original item).
    file: 'cc-pipeline-spread-stages.js',
    callee: 'pipeline',
    args: { modules: ['auth', 'billing'] },
    value: ['auth', 'billing'].map((mod) => `echo:Review the port of ${mod}:\necho:Port ${mod} to the new API.`),
  },
  { file: 'model-options-first.js', callee: 'agent', value: 'echo:Summarize README.md in three bullets.' },
  { file: 'vek-old-parallel.js', callee: 'parallel', value: { lint: 'echo:Run lint', tests: 'echo:Run tests' } },
  { file: 'vek-old-pipeline.js', callee: 'pipeline', value: { api: { path: 'src/api.ts', checked: true }, ui: { path: 'src/ui.ts', checked: true } } },
];

interface Located {
  readonly start: number;
  readonly end: number;
}

/** The span of the script's first call of `callee`. */
function callSpan(source: string, callee: string): Located {
  let found: Located | undefined;
  const visit = (node: unknown): void => {
    if (found !== undefined || typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown> & Partial<Located>;
    const target = record['callee'] as { type?: string; name?: string } | undefined;
    if (record['type'] === 'CallExpression' && target?.type === 'Identifier' && target.name === callee) {
      found = { start: record.start!, end: record.end! };
      return;
    }
    for (const value of Object.values(record)) (Array.isArray(value) ? value : [value]).forEach(visit);
  };
  visit(parseAst(source, { allowReturnOutsideFunction: true }));
  if (found === undefined) throw new Error(`no ${callee}(...) call`);
  return found;
}

/** The call a refusal proposes: "write <call>. " up to the sentence that explains it. */
function proposedCall(message: string): string {
  const match = /write ((?:agent|parallel|pipeline)\(.*?\))(?:\. (?:Each stage|It returns)|$)/.exec(message);
  if (match === null) throw new Error(`no proposed call in: ${message}`);
  expect(match[1]).not.toContain('…');
  return match[1]!;
}

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => {
  await h.close();
});

describe('a refusal that proposes a call', () => {
  it.each(CASES.map((testCase) => [testCase.file, testCase] as const))('%s runs as meant once the call is written', async (_file, testCase) => {
    const source = readFileSync(join(SCRIPTS, testCase.file), 'utf8');
    const args = testCase.args === undefined ? {} : { args: testCase.args };
    const refusal = await h.engine.launch({ name: 'edit', cwd: h.freshCwd(), script: source, ...args }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(WorkflowError);
    const { start, end } = callSpan(source, testCase.callee);
    const edited = source.slice(0, start) + proposedCall((refusal as WorkflowError).message) + source.slice(end);
    const outcome = await h.run(edited, args);
    expect(outcome.error, edited).toBeUndefined();
    expect(outcome.value).toEqual(testCase.value);
  });
});
