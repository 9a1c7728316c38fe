/**
 * The eight prompt commands in a real in-process Pi session (SDK, faux
 * provider) with the workflow host, the plugin entries, the roles entry and
 * the starter loaded, and the package's `pi.prompts` templates: Pi expands
 * `/<command> <text>`, the model follows the expanded template (it launches
 * the template's script with the args the template asks for), and the
 * workflow runs to completion with its agents in their roles and on the
 * starter's aliases. The real `pi` CLI lists them and runs /review-loop in
 * test/e2e/starter.test.ts.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TranscriptContext } from '@earendil-works/pi-ai';
import { parseFrontmatter } from '@earendil-works/pi-coding-agent';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetWorkflowRegistry, type JsonValue } from '../../kernel/index.js';
import { runDirectory } from '../../kernel/store/index.js';
import roles from '../../roles/index.js';
import starter from '../../starter/index.js';
import { createFauxAgentDir, type FauxAgentDir } from '../support/pi-agent-dir.js';
import { callTool, lastToolResult, say, scriptFaux, startHostedSession, type HostedSession, type Reply, type Script } from '../plugins/host/pi-host.js';

const REPO = join(import.meta.dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { pi: { prompts: string[] } };
const PROMPTS_DIR = join(REPO, 'prompts');

/** The text of a message's content (a string or text parts). */
function text(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((part: { type?: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : '')).join('') : '';
}

const firstUserText = (context: TranscriptContext): string => text(context.messages.find((message) => message.role === 'user')?.content);
const lastUserText = (context: TranscriptContext): string => text(context.messages.findLast((message) => message.role === 'user')?.content);

/** The inside of `<tag>…</tag>` in the expanded template: where the command's argument went. */
function tagged(expanded: string, tag: string): string {
  const match = new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(expanded);
  if (match?.[1] === undefined) throw new Error(`no <${tag}> in ${expanded}`);
  return match[1];
}

interface Case {
  readonly argument: string;
  /** The args the template asks the model for, built from the expanded text. */
  args(expanded: string): Record<string, JsonValue>;
  /** The roles its agents ask for. */
  readonly roles: readonly string[];
  readonly value: unknown;
}

const answer = expect.stringMatching(/^answered: /);
const CASES: Readonly<Record<string, Case>> = {
  scout: { argument: 'Where is the config loaded?', args: (t) => ({ question: tagged(t, 'question') }), roles: ['scout'], value: answer },
  'parallel-scout': {
    argument: 'How are plugins ordered?',
    args: (t) => ({ question: tagged(t, 'question'), angles: ['implementation', 'tests'] }),
    roles: ['scout'],
    value: { 'scout-1': answer, 'scout-2': answer },
  },
  oracle: { argument: 'Should the journal use SQLite?', args: (t) => ({ question: tagged(t, 'question') }), roles: ['oracle'], value: answer },
  council: {
    argument: 'Monorepo or not?',
    args: (t) => ({ question: tagged(t, 'question'), perspectives: ['risk', 'simplicity', 'cost'] }),
    roles: ['oracle'],
    value: { opinions: { 'oracle-1': answer, 'oracle-2': answer, 'oracle-3': answer }, verdict: answer },
  },
  review: { argument: 'error handling', args: (t) => ({ focus: tagged(t, 'focus') }), roles: ['reviewer'], value: { passed: true, findings: [] } },
  'parallel-review': {
    argument: '',
    args: () => ({ aspects: ['correctness', 'tests'] }),
    roles: ['reviewer'],
    value: { passed: true, reviews: { 'reviewer-1': { passed: true, findings: [] }, 'reviewer-2': { passed: true, findings: [] } } },
  },
  'review-loop': {
    argument: 'Add a greeting function',
    args: (t) => ({ task: tagged(t, 'task') }),
    roles: ['developer', 'reviewer'],
    value: { passed: true, iterations: 1, result: answer, review: { passed: true, feedback: 'Done right.' } },
  },
  'deep-research': {
    argument: 'How do other runtimes journal effects?',
    args: (t) => ({ question: tagged(t, 'question'), subquestions: ['Temporal', 'Restate'] }),
    roles: ['researcher'],
    value: { findings: { 'researcher-1': answer, 'researcher-2': answer }, report: answer },
  },
};

/** Workflow agents: verdicts where the prompt asks for one, else an answer naming the prompt. */
const agentReply: Reply = (context) => {
  const prompt = firstUserText(context);
  if (prompt.startsWith('Review the change')) return callTool('workflow_result', { passed: true, feedback: 'Done right.' })(context);
  if (prompt.includes('uncommitted changes')) return callTool('workflow_result', { passed: true, findings: [] })(context);
  return callTool('workflow_result', { result: `answered: ${prompt.slice(0, 40)}` })(context);
};

let dir: FauxAgentDir;
let script: Script;
let hosted: HostedSession | undefined;

beforeAll(() => {
  dir = createFauxAgentDir();
});
afterAll(() => dir.close());
beforeEach(() => {
  script = scriptFaux(dir);
});
afterEach(async () => {
  await hosted?.close();
  hosted = undefined;
  resetWorkflowRegistry();
});

describe('the prompt commands', () => {
  it('ships exactly the eight templates through pi.prompts', () => {
    // A folder, not a glob: Pi lists it with readdir, while a glob costs its matcher ~9 ms at every start.
    expect(manifest.pi.prompts).toEqual(['./prompts']);
    const names = readdirSync(PROMPTS_DIR).map((file) => file.replace(/\.md$/, '')).sort();
    expect(Object.keys(CASES).sort()).toEqual(names);
    expect(names).toEqual(['council', 'deep-research', 'oracle', 'parallel-review', 'parallel-scout', 'review', 'review-loop', 'scout']);
  });

  it.each(Object.entries(CASES))('/%s expands into a workflow launch that completes with its agents in their roles', async (command, spec) => {
    hosted = await startHostedSession(dir, { extensions: [starter, roles], promptTemplates: [PROMPTS_DIR] });
    // Pi read the front matter (a YAML error would drop the template or fall back to its first line).
    const { frontmatter } = parseFrontmatter(readFileSync(join(PROMPTS_DIR, `${command}.md`), 'utf8'));
    const listed = hosted.session.promptTemplates.find((template) => template.name === command);
    expect(listed).toMatchObject({ description: frontmatter['description'], argumentHint: frontmatter['argument-hint'] });
    expect(String(frontmatter['description'])).not.toBe('');
    let launched: { name: string; args: Record<string, JsonValue> } | undefined;
    script.main.push((context) => {
      const expanded = lastUserText(context);
      const source = /```js\n([\s\S]*?)```/.exec(expanded)?.[1];
      const name = /name "([^"]+)"/.exec(expanded)?.[1];
      if (source === undefined || name === undefined) throw new Error(`/${command} expanded without a script or name: ${expanded}`);
      launched = { name, args: spec.args(expanded) };
      return callTool('workflow', { name, script: source, args: launched.args, foreground: true })(context);
    });
    let result: Record<string, unknown> = {};
    script.main.push((context) => {
      result = lastToolResult(context);
      return say('Reported.')(context);
    });
    for (let index = 0; index < 16; index += 1) script.agents.push(agentReply);

    await hosted.prompt(`/${command} ${spec.argument}`);
    expect(launched?.name).toBe(command);
    if (spec.argument !== '') expect(Object.values(launched?.args ?? {})).toContain(spec.argument);
    expect(result, JSON.stringify(result)).toMatchObject({ state: 'completed', value: spec.value });

    // Every agent asked for a role of the command and for the starter alias of that role, which is the session's model.
    const runDir = runDirectory(join(dir.root, 'runs'), dir.cwd, hosted.session.sessionId, String(result['runId']));
    const snapshot = JSON.parse(readFileSync(join(runDir, 'snapshot.json'), 'utf8')) as { agentConfigurations: Record<string, { model: string; systemPromptAppend?: string }> };
    const configs = Object.values(snapshot.agentConfigurations);
    expect(configs.length).toBeGreaterThan(0);
    for (const config of configs) {
      expect(config.model).toMatch(/^faux\/faux-1:/);
      expect(spec.roles.some((role) => config.systemPromptAppend?.includes(`You are ${role === 'oracle' ? 'an oracle' : `the ${role}`}`) || config.systemPromptAppend?.includes(`You are a ${role}`))).toBe(true);
    }
  });
});
