/**
 * Scripts through the real `wfcli run --script` (a headless Pi session, this
 * package's entries, the loopback model answering every agent through
 * `workflow_result`):
 *
 * - the compatibility cases marked `cli` (test/compat/cases.ts), one or more
 *   for each finding of issue 26: the value, or the refusal before anything
 *   runs (no run ID, no run directory), the warnings on stderr, a script
 *   error's line and column without a retry hint;
 * - every runnable example (a `js run` fence) of the skill, the README
 *   (examples/hello.js) and docs/: each completes; every other `js` fence
 *   says why it does not run (`js no-run: <reason>`).
 *
 * Agents answer `echo:<prompt>`, a case's own answers, or for an
 * `outputSchema` a small value of the schema's shape.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../kernel/json.js';
import { COMPAT_CASES } from '../compat/cases.js';
import { createPiHome, REPO_ROOT, runWfcli, type PiHome } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const RUN_ID = /^run (wf-[0-9a-z]{9}-[0-9a-f]{8})$/m;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((part: { type?: unknown; text?: unknown }) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('') : '';
}

/** A small value of a JSON schema's shape. */
function sample(schema: unknown): JsonValue {
  const node = (schema ?? {}) as { type?: unknown; properties?: Record<string, unknown>; items?: unknown; enum?: JsonValue[]; const?: JsonValue };
  if (node.const !== undefined) return node.const;
  if (node.enum !== undefined) return node.enum[0] ?? null;
  if (node.type === 'object' || node.properties !== undefined) return Object.fromEntries(Object.entries(node.properties ?? {}).map(([key, value]) => [key, sample(value)]));
  if (node.type === 'array') return [sample(node.items)];
  if (node.type === 'number' || node.type === 'integer') return 1;
  if (node.type === 'boolean') return true;
  return 'sample';
}

/** `workflow_result`'s arguments: `{ result }` by default, else a value of the task's schema. */
function resultFor(parameters: unknown, prompt: string): JsonValue {
  const properties = Object.keys((parameters as { properties?: object } | undefined)?.properties ?? {});
  return properties.length === 1 && properties[0] === 'result' ? { result: `echo:${prompt}` } : sample(parameters);
}

/** Runnable examples: `js run` fences, with optional launch JSON (`{"args": ...}`) after it. */
function runnableExamples(file: string): { name: string; source: string; args?: JsonValue }[] {
  const text = readFileSync(join(REPO_ROOT, file), 'utf8');
  return [...text.matchAll(/^```js run(?: (\{.*\}))?\n([\s\S]*?)^```$/gm)].map((match, index) => {
    const launch = match[1] === undefined ? {} : (JSON.parse(match[1]) as { args?: JsonValue });
    return { name: `${file} #${index + 1}`, source: match[2]!, ...(launch.args === undefined ? {} : { args: launch.args }) };
  });
}

const DOCS = ['README.md', 'skills/pi-extensible-workflows/SKILL.md', ...readdirSync(join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

describe('wfcli run --script', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  let answers: Readonly<Record<string, JsonValue>> = {};
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: pi.cwd });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'init'], { cwd: pi.cwd });
    model.agents((request) => {
      // A handle's later turn comes after earlier turns' results: answer its own (latest) prompt.
      const last = request.messages.findLastIndex((message) => message.role === 'user');
      if (request.messages.slice(last + 1).some((message) => message.role === 'tool')) return { text: 'done' };
      const prompt = textOf(request.messages[last]?.content);
      const value = Object.hasOwn(answers, prompt) ? answers[prompt]! : resultFor(request.toolSchemas['workflow_result'], prompt);
      return { toolCalls: [{ name: 'workflow_result', arguments: value }] };
    });
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  /** Every run directory of every session of the project. */
  const runDirs = (): string[] => {
    const projects = join(pi.home, '.pi', 'workflows', 'projects');
    if (!existsSync(projects)) return [];
    return readdirSync(projects).flatMap((project) => {
      const sessions = join(projects, project, 'sessions');
      return readdirSync(sessions).flatMap((session) => {
        const runs = join(sessions, session, 'runs');
        return existsSync(runs) ? readdirSync(runs).filter((name) => !name.startsWith('.')).map((name) => join(runs, name)) : [];
      });
    });
  };

  const run = (file: string, source: string, args: JsonValue | undefined) => {
    writeFileSync(join(pi.cwd, file), source);
    return runWfcli(pi, ['run', '--script', file, ...(args === undefined ? [] : ['--input', JSON.stringify(args)])]);
  };

  describe('scripts written for other runtimes', () => {
    it.each(COMPAT_CASES.filter((testCase) => testCase.cli).map((testCase) => [testCase.file, testCase] as const))('%s', async (file, testCase) => {
      answers = testCase.answers ?? {};
      const before = runDirs().length;
      const result = await run(file, readFileSync(join(REPO_ROOT, 'test', 'compat', 'scripts', file), 'utf8'), testCase.args);
      const { expect: expected } = testCase;
      if ('preflight' in expected) {
        expect(result.code, result.stderr).toBe(1);
        // One problem, or several listed one a line (kernel/preflight/problems.ts).
        expect(result.stderr).toMatch(/^INVALID_SYNTAX: (Line \d+, column \d+: |The workflow script has \d+ problems; .*\nLine \d+, column \d+: )/m);
        for (const fragment of expected.preflight) expect(result.stderr).toContain(fragment);
        expect(result.stderr).not.toMatch(RUN_ID);
        expect(runDirs().length).toBe(before);
        return;
      }
      const runId = RUN_ID.exec(result.stderr)?.[1];
      expect(runId, result.stderr).toBeDefined();
      for (const fragment of testCase.warnings ?? []) expect(result.stderr).toContain(fragment);
      if ('value' in expected) {
        expect(result.code, result.stderr).toBe(0);
        expect(JSON.parse(result.stdout)).toEqual(expected.value);
      } else {
        expect(result.code).toBe(1);
        for (const fragment of expected.failure.message) expect(result.stderr).toContain(`${expected.failure.code}: ${fragment}`);
        expect(result.stderr).toContain('fix the script and launch it again');
        expect(result.stderr).not.toContain('wfcli retry');
      }
      if (testCase.logs !== undefined) {
        const runDir = runDirs().find((dir) => dir.endsWith(runId!))!;
        const events = readFileSync(join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { type: string; message?: string });
        expect(events.flatMap((event) => (event.type === 'log' ? [event.message] : []))).toEqual(testCase.logs);
      }
      if (testCase.meta?.name !== undefined) {
        const runDir = runDirs().find((dir) => dir.endsWith(runId!))!;
        expect((JSON.parse(readFileSync(join(runDir, 'snapshot.json'), 'utf8')) as { workflow: unknown }).workflow).toEqual(testCase.meta);
      }
    });
  });

  describe('every problem at once, literal options at launch (issue 36 items 4 and 5)', () => {
    it('a script with two problems gets both in one refusal, each with its line, column and fix', async () => {
      answers = {};
      const before = runDirs().length;
      const source = "const started = Date.now();\nconst checks = await parallel([{ name: 'lint', run: () => agent('Run lint') }], { name: 'verify' });\nreturn { started, checks };\n";
      const result = await run('two-problems.js', source, undefined);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain('INVALID_SYNTAX: The workflow script has 2 problems; fix all of them before launching it again:\nLine 1, column 17: Date.now() reads the clock');
      expect(result.stderr).toMatch(/^Line 2, column 22: this is an older runtime's parallel\(\[\{ name, run \}\], \{ name \}\); write parallel\("verify", \{ lint: \(\) => agent\('Run lint'\) \}\)/m);
      expect(result.stderr).not.toMatch(RUN_ID);
      expect(runDirs().length).toBe(before);
    });

    it('a partly computed agent call with an unknown literal model is refused before any work', async () => {
      answers = {};
      const before = runDirs().length;
      const source = "await shell('touch side-effect');\nconst out = [];\nfor (const i of [1, 2]) out.push(await agent(`Review part ${i}`, { label: `review ${i}`, model: 'haiku' }));\nreturn out;\n";
      const result = await run('partial-options.js', source, undefined);
      expect(result.code, result.stderr).toBe(1);
      // The message leads somewhere: where an alias would be defined, and the concrete form.
      expect(result.stderr).toMatch(/^UNKNOWN_MODEL: Unknown model "haiku": "haiku" is neither an alias configured in .*settings\.json .* a concrete model needs the form provider\/model:thinking \(agent at 3:40\)$/m);
      expect(existsSync(join(pi.cwd, 'side-effect'))).toBe(false);
      expect(result.stderr).not.toMatch(RUN_ID);
      expect(runDirs().length).toBe(before);
    });
  });

  describe('examples of the skill and the docs', () => {
    const examples = DOCS.flatMap(runnableExamples);

    it('every JavaScript example in the skill and the docs is runnable or says why not', () => {
      const fences = DOCS.flatMap((file) => [...readFileSync(join(REPO_ROOT, file), 'utf8').matchAll(/^```js((?: .*)?)$/gm)].map((match) => [file, match[1]!] as const));
      expect(fences.filter(([file]) => file.startsWith('skills/')).length).toBeGreaterThan(8);
      for (const [file, info] of fences) expect(info, file).toMatch(/^ (run( \{.*\})?|no-run: .+)$/);
      expect(examples.length).toBe(fences.filter(([, info]) => info.startsWith(' run')).length);
    });

    // The README's example is examples/hello.js, whole (test/docs-examples.test.ts).
    it.each(examples.map((example) => [example.name, example] as const))(
      '%s completes',
      async (name, example) => {
        answers = {};
        const result = await run('example.js', example.source, example.args);
        expect(result.code, `${name}\n${result.stderr}`).toBe(0);
        expect(result.stderr).not.toContain('warning:');
      },
    );
  });
});
