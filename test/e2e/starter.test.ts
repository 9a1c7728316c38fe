/**
 * The starter and the prompt commands in real `pi` processes with this
 * package installed, on a loopback OpenAI-compatible provider: reviewLoop
 * fails its first review and passes its second, with one developer session
 * continued across both turns and a fresh reviewer session per iteration;
 * the aliases resolve to the launching session's model unless settings
 * define them; `pi --mode rpc` lists the eight prompt commands; and
 * `/review-loop` in print mode starts a reviewLoop run.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addLocalPackage, PI_CLI, REPO_ROOT, createPiHome, launchWorkflows, piEnv, runPi, type PiHome } from './support/pi-cli.js';
import { MODEL_ID, startScriptedModel, type AgentRequest, type AgentScript, type ScriptedModel } from './support/scripted-model.js';

const STRICT_MODEL = 'e2e-strict';
const COMMANDS = ['council', 'deep-research', 'oracle', 'parallel-review', 'parallel-scout', 'review', 'review-loop', 'scout'];

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((part: { type?: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : '')).join('') : '';
}

/**
 * Workflow agents of the loopback model: developer turns answer `work <n>`;
 * the first review fails with feedback, the second passes.
 */
function reviewAgents(): AgentScript {
  let developerTurns = 0;
  let reviews = 0;
  return (request) => {
    // After its workflow_result a session ends; a request that follows a tool result only needs an end.
    if (request.messages.at(-1)?.role === 'tool') return { text: 'done' };
    if (request.prompt.startsWith('Review the change')) {
      reviews += 1;
      const verdict = reviews === 1 ? { passed: false, feedback: 'Add a test for the greeting.' } : { passed: true, feedback: 'Tested and correct.' };
      return { toolCalls: [{ name: 'workflow_result', arguments: verdict }] };
    }
    developerTurns += 1;
    return { toolCalls: [{ name: 'workflow_result', arguments: { result: `work ${developerTurns}` } }] };
  };
}

const kindOf = (request: AgentRequest): 'developer' | 'reviewer' => (request.prompt.startsWith('Review the change') ? 'reviewer' : 'developer');
/** The agent requests that asked for work (not the end after a result). */
const workRequests = (model: ScriptedModel): AgentRequest[] => model.agentLog.filter((request) => request.messages.at(-1)?.role !== 'tool');

/** The workflow run of a `workflow` tool result. */
function runIdOf(details: unknown): string {
  return (details as { runId: string }).runId;
}

describe('the reviewLoop starter in a pi process', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  const settingsFile = () => join(pi.agentDir, 'pi-extensible-workflows', 'settings.json');
  beforeAll(async () => {
    model = await startScriptedModel({ extraModels: [STRICT_MODEL] });
    pi = createPiHome(model);
    addLocalPackage(pi, REPO_ROOT);
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });
  beforeEach(() => {
    model.agentLog.splice(0);
    model.agents(reviewAgents());
    rmSync(settingsFile(), { force: true });
  });

  /** The main session launches `script` once, foreground, and then ends. */
  const launch = async (sessionId: string, script: string) => {
    const [execution] = await launchWorkflows(pi, model, sessionId, [{ name: 'review', script }]);
    expect(execution?.isError, execution?.text).toBe(false);
    const runId = runIdOf(execution?.details);
    return { execution, runId, runDir: pi.runDir(sessionId, runId) };
  };

  it('returns after two iterations: one developer session across both turns, two reviewer sessions, every alias the session model', async () => {
    const { execution, runDir } = await launch('loop', "return await reviewLoop({ task: 'Add a greeting function' });");
    expect(execution?.details).toMatchObject({
      state: 'completed',
      value: { passed: true, iterations: 2, result: 'work 2', review: { passed: true, feedback: 'Tested and correct.' } },
    });
    expect(workRequests(model).map(kindOf)).toEqual(['developer', 'reviewer', 'developer', 'reviewer']);

    // The developer's second turn continues its transcript: the task, its first result, then the feedback.
    const [firstTurn, secondTurn] = workRequests(model).filter((request) => kindOf(request) === 'developer');
    const users = (request: AgentRequest | undefined) => (request?.messages ?? []).filter((message) => message.role === 'user').map((message) => text(message.content));
    expect(users(firstTurn)).toHaveLength(1);
    expect(users(secondTurn)).toEqual([users(firstTurn)[0], expect.stringContaining('Add a test for the greeting.')]);
    expect(secondTurn?.messages.some((message) => message.role === 'tool')).toBe(true);
    // Each review starts a fresh session: one user message, the developer's latest summary in it.
    const reviews = workRequests(model).filter((request) => kindOf(request) === 'reviewer');
    expect(reviews.map((request) => users(request).length)).toEqual([1, 1]);
    expect(users(reviews[1])[0]).toContain('<summary>\nwork 2\n</summary>');

    // Native sessions, as recorded with every system prompt: the developer's two turns share one.
    const snapshot = pi.readJson(join(runDir, 'snapshot.json')) as { agents: Record<string, { label: string; phase: string }>; plugins: { aliases: { mapping: Record<string, string>; sources: Record<string, { kind: string }> } } };
    const records = readFileSync(join(runDir, 'system-prompts.json'), 'utf8').trim().split('\n').slice(1).map((line) => JSON.parse(line) as { agentId: string; nativeSessionId: string; turn: number });
    const sessionsOf = (label: string) => records.filter((record) => snapshot.agents[record.agentId]?.label === label).map((record) => record.nativeSessionId);
    const developerSessions = sessionsOf('developer');
    const reviewerSessions = sessionsOf('reviewer');
    expect(developerSessions).toHaveLength(2);
    expect(new Set(developerSessions).size).toBe(1);
    expect(reviewerSessions).toHaveLength(2);
    expect(new Set([...reviewerSessions, ...developerSessions]).size).toBe(3);
    expect(Object.values(snapshot.agents).map((agent) => `${agent.label}@${agent.phase}`).sort()).toEqual(['developer@reviewLoop › iteration 1', 'developer@reviewLoop › iteration 2', 'reviewer@reviewLoop › iteration 1', 'reviewer@reviewLoop › iteration 2']);

    // developer-model and reviewer-model (and the other three) are the launching session's model.
    expect(workRequests(model).map((request) => request.model)).toEqual([MODEL_ID, MODEL_ID, MODEL_ID, MODEL_ID]);
    const { mapping, sources } = snapshot.plugins.aliases;
    for (const alias of ['developer-model', 'reviewer-model', 'scout-model', 'oracle-model', 'researcher-model']) {
      expect(mapping[alias]).toMatch(new RegExp(`^e2e/${MODEL_ID}(:[a-z]+)?$`));
      expect(sources[alias]).toMatchObject({ kind: 'dynamic', extension: { headline: 'reviewLoop starter' } });
    }
  });

  it('keeps the phases of two reviewLoop calls apart: each names the call that set it', async () => {
    const { execution, runDir } = await launch('twice', "const a = await reviewLoop({ task: 'First task' });\nconst b = await reviewLoop({ task: 'Second task' });\nreturn [a.iterations, b.iterations];");
    expect(execution?.details).toMatchObject({ state: 'completed', value: [2, 1] });
    const snapshot = pi.readJson(join(runDir, 'snapshot.json')) as { phase: string; agents: Record<string, { label: string; phase: string; breadcrumb: string[] }> };
    expect(Object.values(snapshot.agents).map((agent) => `${agent.breadcrumb.join('/')}: ${agent.label}@${agent.phase}`)).toEqual([
      'reviewLoop: developer@reviewLoop › iteration 1',
      'reviewLoop: reviewer@reviewLoop › iteration 1',
      'reviewLoop: developer@reviewLoop › iteration 2',
      'reviewLoop: reviewer@reviewLoop › iteration 2',
      'reviewLoop#2: developer@reviewLoop#2 › iteration 1',
      'reviewLoop#2: reviewer@reviewLoop#2 › iteration 1',
    ]);
    expect(snapshot.phase).toBe('reviewLoop#2 › iteration 1');
  });

  it('lets a static reviewer-model in the settings win over the dynamic alias', async () => {
    mkdirSync(join(pi.agentDir, 'pi-extensible-workflows'), { recursive: true });
    writeFileSync(settingsFile(), JSON.stringify({ modelAliases: { 'reviewer-model': `e2e/${STRICT_MODEL}:off` } }));
    const { execution, runDir } = await launch('static', "return await reviewLoop({ task: 'Add a greeting function' });");
    expect(execution?.details).toMatchObject({ state: 'completed', value: { passed: true, iterations: 2 } });
    expect(workRequests(model).map((request) => `${kindOf(request)}:${request.model}`)).toEqual([`developer:${MODEL_ID}`, `reviewer:${STRICT_MODEL}`, `developer:${MODEL_ID}`, `reviewer:${STRICT_MODEL}`]);
    const aliases = (pi.readJson(join(runDir, 'snapshot.json')) as { plugins: { aliases: { mapping: Record<string, string>; sources: Record<string, unknown> } } }).plugins.aliases;
    expect(aliases.mapping['reviewer-model']).toBe(`e2e/${STRICT_MODEL}:off`);
    expect(aliases.sources['reviewer-model']).toEqual({ kind: 'static', settingsPath: settingsFile() });
    expect(aliases.sources['developer-model']).toMatchObject({ kind: 'dynamic' });
  });

  it('with the starter entry filtered out, reviewLoop and the five aliases are gone and nothing else', async () => {
    const settings = JSON.parse(readFileSync(join(pi.agentDir, 'settings.json'), 'utf8')) as { packages: (string | { source: string })[] };
    const original = JSON.stringify(settings, null, 2);
    settings.packages = settings.packages.map((entry) => {
      const source = typeof entry === 'string' ? entry : entry.source;
      return resolve(pi.agentDir, source) === resolve(REPO_ROOT) ? { source, extensions: ['-dist/starter/index.js'] } : entry;
    });
    writeFileSync(join(pi.agentDir, 'settings.json'), JSON.stringify(settings, null, 2));
    model.agents(undefined);
    try {
      const [loop, alias, roled] = await launchWorkflows(pi, model, 'no-starter', [
        { name: 'loop', script: "return await reviewLoop({ task: 'Add a greeting function' });" },
        { name: 'alias', script: "return await agent('aliased', { model: 'reviewer-model' });" },
        { name: 'roled', script: "return await agent('plain review', { role: 'reviewer' });" },
      ]);
      expect(loop?.isError).toBe(true);
      expect(loop?.text).toMatch(/^INVALID_SYNTAX: .*"reviewLoop" is not defined/);
      expect(alias?.isError).toBe(true);
      expect(alias?.text).toMatch(/^UNKNOWN_MODEL: .*reviewer-model/);
      // The roles entry is independent of the starter: the fallback reviewer role still applies.
      expect(roled?.details).toMatchObject({ state: 'completed', value: 'plain review: done' });
      expect(workRequests(model).find((request) => request.prompt === 'plain review')?.system).toContain('You are a reviewer.');
      expect(workRequests(model).map((request) => request.prompt)).toEqual(['plain review']);
    } finally {
      writeFileSync(join(pi.agentDir, 'settings.json'), original);
    }
  });

  it('lists the eight prompt commands of the package (pi --mode rpc, get_commands)', async () => {
    const child = spawn(process.execPath, [PI_CLI, '--mode', 'rpc', '--approve', '--no-session'], {
      cwd: pi.cwd,
      env: piEnv(pi),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    try {
      const response = new Promise<{ data: { commands: { name: string; description?: string; source: string; sourceInfo: { path: string } }[] } }>((resolve, reject) => {
        let buffered = '';
        child.stdout.setEncoding('utf8').on('data', (data: string) => {
          buffered += data;
          for (const line of buffered.split('\n').slice(0, -1)) {
            const record = JSON.parse(line) as { type?: string; command?: string; success?: boolean };
            if (record.type === 'response' && record.command === 'get_commands') resolve(record as never);
          }
          buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
        });
        child.once('exit', (code) => reject(new Error(`pi --mode rpc exited ${code} before answering`)));
      });
      child.stdin.write(`${JSON.stringify({ type: 'get_commands' })}\n`);
      const { data } = await response;
      const prompts = data.commands.filter((command) => command.source === 'prompt');
      expect(prompts.map((command) => command.name).sort()).toEqual(COMMANDS);
      for (const command of prompts) {
        expect(command.sourceInfo.path).toBe(join(REPO_ROOT, 'prompts', `${command.name}.md`));
        expect(command.description).toMatch(/\S/);
      }
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('/review-loop in print mode starts a reviewLoop run', async () => {
    let expanded = '';
    model.main(({ prompt, toolResults }) => {
      if (toolResults.length > 0) {
        const outcome = JSON.parse(toolResults[0] ?? '{}') as { value?: { passed?: boolean; iterations?: number } };
        return { text: `Review loop finished: passed=${String(outcome.value?.passed)} after ${String(outcome.value?.iterations)} iterations.` };
      }
      // The model follows the expanded template: its script, with the task as args.
      expanded = prompt;
      const script = /```js\n([\s\S]*?)```/.exec(prompt)?.[1];
      const task = /<task>\n([\s\S]*?)\n<\/task>/.exec(prompt)?.[1];
      if (script === undefined || task === undefined) return { text: `not a review-loop template: ${prompt}` };
      return { toolCalls: [{ name: 'workflow', arguments: { name: 'review-loop', script, args: { task }, foreground: true } }] };
    });
    const { stdout } = await runPi(pi, ['-p', '--approve', '--session-id', 'print', '/review-loop Add a greeting function']);
    expect(expanded).toContain('Run the `reviewLoop` workflow');
    expect(stdout).toContain('Review loop finished: passed=true after 2 iterations.');
    const [runId, ...others] = pi.runIds('print');
    expect(others).toEqual([]);
    const runDir = pi.runDir('print', runId ?? '');
    expect(readFileSync(join(runDir, 'workflow.js'), 'utf8')).toContain('reviewLoop({ task: args.task })');
    expect(pi.readJson(join(runDir, 'snapshot.json'))).toMatchObject({ workflow: { name: 'review-loop' }, args: { task: 'Add a greeting function' }, state: 'completed' });
    expect(workRequests(model).map(kindOf)).toEqual(['developer', 'reviewer', 'developer', 'reviewer']);
    expect(workRequests(model)[0]?.prompt).toMatch(/^Add a greeting function\n/);
  });
});
