/**
 * The Pi transport against the real SDK with pi-ai's faux provider, declared
 * in a temporary agent dir's models.json. No part of Pi is mocked.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fauxAssistantMessage, fauxText, fauxToolCall, getCurrentTools, type FauxResponseStep, type TranscriptContext } from '@earendil-works/pi-ai';
import type { ExtensionAPI } from '@earendil-works/pi-coding-agent';
import type { SessionProgress, WorkflowSession } from '../../../kernel/contracts/transport.js';
import type { JsonValue } from '../../../kernel/json.js';
import { createPiTransport, RESULT_TOOL_NAME } from '../../../plugins/pi-transport/index.js';
import { createFauxAgentDir, type FauxAgentDir } from '../../support/pi-agent-dir.js';
import { sessionArgs, type SessionSpec } from '../../support/pi-session-input.js';

let dir: FauxAgentDir;
const open: WorkflowSession[] = [];

beforeAll(() => {
  dir = createFauxAgentDir();
});
afterAll(async () => {
  await Promise.all(open.map((session) => session.dispose()));
  dir.close();
});
beforeEach(() => dir.faux.setResponses([]));

async function start(spec: Partial<SessionSpec> = {}): Promise<{ session: WorkflowSession; progress: SessionProgress[] }> {
  const transport = createPiTransport({ agentDir: dir.agentDir });
  const session = await transport.createSession(...sessionArgs({ cwd: dir.cwd, model: dir.model('low'), ...spec }));
  open.push(session);
  const progress: SessionProgress[] = [];
  session.subscribe((event) => progress.push(event));
  return { session, progress };
}

const submit = (args: Parameters<typeof fauxToolCall>[1]) => fauxAssistantMessage(fauxToolCall(RESULT_TOOL_NAME, args), { stopReason: 'toolUse' });
const results = (progress: SessionProgress[]) => progress.filter((event) => event.type === 'result').map((event) => event.value);

/** Text of every message the model received on its last request, by role. */
function transcript(context: TranscriptContext): { role: string; text: string }[] {
  return context.messages
    .filter((message) => message.role !== 'system')
    .map((message) => ({
      role: message.role,
      text:
        typeof message.content === 'string'
          ? message.content
          : message.content.map((block) => ('text' in block ? block.text : block.type === 'toolCall' ? `call:${block.name}` : block.type)).join(''),
    }));
}

describe('pi transport session (faux provider)', () => {
  it('submits the result through workflow_result and stops after it', async () => {
    dir.faux.setResponses([submit({ result: 'done' }), fauxAssistantMessage('never requested')]);
    const { session, progress } = await start();
    expect(session.reference).toEqual({ transport: 'pi', sessionId: session.nativeSessionId, sessionFile: expect.stringMatching(/\/workflows\/r1\/.*\.jsonl$/) });
    expect(session.state()).toBe('idle');
    await session.prompt('Summarize');
    expect(results(progress)).toEqual([{ result: 'done' }]);
    expect(progress.map((event) => event.type)).toEqual(['turn_start', 'tool', 'result', 'turn_end']);
    expect(progress).toContainEqual({ type: 'tool', name: RESULT_TOOL_NAME });
    expect(dir.faux.getPendingResponseCount()).toBe(1);
    expect(session.state()).toBe('idle');
  });

  it('returns a tool error for an invalid outputSchema submission, then accepts the corrected one', async () => {
    let retryContext: TranscriptContext | undefined;
    const retry: FauxResponseStep = (context) => {
      retryContext = context;
      return submit({ score: 7, verdict: 'pass' });
    };
    dir.faux.setResponses([submit({ score: 'high' }), retry]);
    const outputSchema = {
      $id: 'https://example.test/review.json',
      type: 'object',
      properties: { score: { type: 'integer', minimum: 0, maximum: 10 }, verdict: { enum: ['pass', 'fail'] } },
      required: ['score', 'verdict'],
      additionalProperties: false,
    };
    const { session, progress } = await start({ options: { outputSchema } });
    await session.prompt('Review');
    expect(results(progress)).toEqual([{ score: 7, verdict: 'pass' }]);
    const toolResult = retryContext?.messages.find((message) => message.role === 'toolResult');
    expect(toolResult).toMatchObject({ role: 'toolResult', toolName: RESULT_TOOL_NAME, isError: true });
    expect(session.stats().turns).toBe(2);
    // The next attempt gets an equal schema with the same $id.
    await (await start({ options: { outputSchema: structuredClone(outputSchema) } })).session.dispose();
  });

  it('wraps a non-object outputSchema as { value } and submits the bare value', async () => {
    dir.faux.setResponses([submit({ value: ['a', 'b'] })]);
    const { session, progress } = await start({ options: { outputSchema: { type: 'array', items: { type: 'string' } } } });
    await session.prompt('List');
    expect(results(progress)).toEqual([['a', 'b']]);
  });

  it('never parses prose: a run that only answers in text emits no result', async () => {
    dir.faux.setResponses([fauxAssistantMessage(fauxText('{"result":"done"}'))]);
    const { session, progress } = await start();
    await session.prompt('Summarize');
    expect(results(progress)).toEqual([]);
    expect(progress.map((event) => event.type)).toEqual(['turn_start', 'turn_end']);
  });

  it('counts tokens and turns from the session statistics', async () => {
    dir.faux.setResponses([fauxAssistantMessage(fauxText('thinking it over')), submit({ result: 'done' })]);
    const { session } = await start();
    expect(session.stats()).toEqual({ inputTokens: 0, outputTokens: 0, costUsd: 0, turns: 0 });
    const turnEnds: number[] = [];
    session.subscribe((event) => {
      if (event.type === 'turn_end') turnEnds.push(event.stats.turns);
    });
    // The first answer is prose, so the run ends; a follow-up prompt continues the transcript.
    await session.prompt('Summarize');
    await session.prompt('Now submit it');
    const stats = session.stats();
    expect(stats.turns).toBe(2);
    expect(turnEnds).toEqual([1, 2]);
    expect(stats.inputTokens).toBeGreaterThan(0);
    expect(stats.outputTokens).toBeGreaterThan(0);
    expect(stats.costUsd).toBe(0);
  });

  it('aborts a running session: prompt rejects, no result, the session is idle again', async () => {
    let requested!: () => void;
    const started = new Promise<void>((resolve) => (requested = resolve));
    const hang: FauxResponseStep = (_context, options) =>
      new Promise((resolve) => {
        requested();
        options?.signal?.addEventListener('abort', () => resolve(fauxAssistantMessage('', { stopReason: 'aborted' })), { once: true });
      });
    dir.faux.setResponses([hang]);
    const { session, progress } = await start();
    const turn = session.prompt('Take your time');
    expect(session.state()).toBe('running');
    await started;
    await session.abort();
    await expect(turn).rejects.toThrow(/aborted/);
    expect(results(progress)).toEqual([]);
    expect(session.state()).toBe('idle');
  });

  it('disposes idempotently, also while running', async () => {
    dir.faux.setResponses([submit({ result: 'done' })]);
    const { session } = await start();
    await session.prompt('Summarize');
    const stats = session.stats();
    await Promise.all([session.dispose(), session.dispose()]);
    await session.dispose();
    expect(session.state()).toBe('disposed');
    expect(session.stats()).toEqual(stats);
    await expect(session.prompt('again')).rejects.toThrow(/disposed/);

    const hang: FauxResponseStep = (_context, options) =>
      new Promise((resolve) => options?.signal?.addEventListener('abort', () => resolve(fauxAssistantMessage('', { stopReason: 'aborted' })), { once: true }));
    dir.faux.setResponses([hang]);
    const running = (await start()).session;
    const turn = running.prompt('Hang');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await running.dispose();
    await expect(turn).rejects.toThrow(/aborted/);
    expect(running.state()).toBe('disposed');
  });

  it('exposes the effective system prompt with the append text and the result tool', async () => {
    const { session } = await start({ systemPromptAppend: 'Always answer in French.' });
    const prompt = session.systemPrompt?.() ?? '';
    expect(prompt).toContain('Always answer in French.');
    expect(prompt).toContain(RESULT_TOOL_NAME);
    expect(session.nativeSessionId).toMatch(/\S/);
  });

  it('keeps the user message exactly the prompt and delivers turn control as a separate message', async () => {
    let seen: TranscriptContext | undefined;
    dir.faux.setResponses([
      (context) => {
        seen = structuredClone(context);
        return submit({ result: 'ok' });
      },
    ]);
    const { session } = await start({ turnControl: 'Attempt 2 of 2. Submit with workflow_result.' });
    expect(session.turnControlDelivered).toBe(true);
    const systemBefore = session.systemPrompt?.();
    await session.prompt('/fix {{not a template}} $1');
    expect(transcript(seen!)).toEqual([
      { role: 'user', text: '/fix {{not a template}} $1' },
      { role: 'user', text: 'Attempt 2 of 2. Submit with workflow_result.' },
    ]);
    expect(session.systemPrompt?.()).toBe(systemBefore);
    expect(systemBefore).not.toContain('Attempt 2 of 2');
  });

  it('delivers steer() text given before the prompt right after it', async () => {
    let seen: TranscriptContext | undefined;
    dir.faux.setResponses([
      (context) => {
        seen = structuredClone(context);
        return submit({ result: 'ok' });
      },
    ]);
    const { session } = await start();
    expect(session.turnControlDelivered).toBeUndefined();
    await session.steer('Budget: wrap up.');
    await session.prompt('Task');
    expect(transcript(seen!).map((message) => message.text)).toEqual(['Task', 'Budget: wrap up.']);
  });

  it('evaluates tool selectors: ["!*", ...] keeps only the listed tools plus workflow_result, excludeTools removes one', async () => {
    let declared: string[] = [];
    dir.faux.setResponses([
      (context) => {
        declared = getCurrentTools(context.messages).map((tool) => tool.name);
        return submit({ result: 'ok' });
      },
    ]);
    const { session } = await start({ tools: ['!*', 'read', 'bash', 'edit'], excludeTools: ['bash'] });
    await session.prompt('Task');
    expect(declared.sort()).toEqual(['edit', 'read', RESULT_TOOL_NAME].sort());
  });

  it('runs custom tools that carry an execute function', async () => {
    const calls: unknown[] = [];
    dir.faux.setResponses([
      fauxAssistantMessage(fauxToolCall('lookup', { key: 'x' }), { stopReason: 'toolUse' }),
      (context) => {
        const last = context.messages.at(-1);
        const text = last?.role === 'toolResult' ? last.content.map((block) => ('text' in block ? block.text : '')).join('') : '';
        return submit({ result: text });
      },
    ]);
    const lookup = {
      name: 'lookup',
      description: 'Looks a key up',
      parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
      execute: async (params: JsonValue) => {
        calls.push(params);
        return { found: true };
      },
    };
    const { session, progress } = await start({ customTools: [lookup] });
    await session.prompt('Task');
    expect(calls).toEqual([{ key: 'x' }]);
    expect(results(progress)).toEqual([{ result: '{"found":true}' }]);
  });

  it('waits for a fresh result on every prompt of the same session', async () => {
    dir.faux.setResponses([submit({ result: 'one' }), submit({ result: 'two' })]);
    const { session, progress } = await start();
    await session.prompt('First');
    await session.prompt('Second');
    expect(results(progress)).toEqual([{ result: 'one' }, { result: 'two' }]);
  });

  it('loads extension factories, hands them the settings on session_start and shuts them down on dispose', async () => {
    const seen: string[] = [];
    const extension = (pi: ExtensionAPI) => {
      pi.on('session_start', (event) => void seen.push(`start:${JSON.stringify((event as { settings?: unknown }).settings)}`));
      pi.on('session_shutdown', () => void seen.push('shutdown'));
    };
    const { session } = await start({ extensionFactories: [extension], settings: { review: { strict: true } } });
    expect(seen).toEqual(['start:{"review":{"strict":true}}']);
    await session.dispose();
    expect(seen).toEqual(['start:{"review":{"strict":true}}', 'shutdown']);
  });

  it('stops after the result even when another tool ran in the same batch', async () => {
    const noop = { name: 'noop', description: 'Does nothing', parameters: { type: 'object', properties: {} }, execute: async () => 'ok' };
    dir.faux.setResponses([
      fauxAssistantMessage([fauxToolCall('noop', {}), fauxToolCall(RESULT_TOOL_NAME, { result: 'done' })], { stopReason: 'toolUse' }),
      fauxAssistantMessage('never requested'),
    ]);
    const { session, progress } = await start({ customTools: [noop] });
    await session.prompt('Task');
    expect(results(progress)).toEqual([{ result: 'done' }]);
    expect(dir.faux.getPendingResponseCount()).toBe(1);
    expect(session.state()).toBe('idle');
  });
  it('keeps one session across turns and validates each turn against its own schema', async () => {
    const seen: TranscriptContext[] = [];
    const record =
      (answer: ReturnType<typeof submit>): FauxResponseStep =>
      (context) => {
        seen.push(structuredClone(context));
        return answer;
      };
    const count = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } as const;
    dir.faux.setResponses([record(submit({ result: 'one' })), record(submit({ result: 'not a count' })), record(submit({ n: 2 }))]);
    const { session, progress } = await start();
    await session.prompt('First', {});
    const systemBefore = session.systemPrompt?.();
    await session.prompt('Second', { outputSchema: count });
    expect(results(progress)).toEqual([{ result: 'one' }, { n: 2 }]);
    const [first, wrong, second] = seen;
    const resultTool = (context: TranscriptContext | undefined) => getCurrentTools(context?.messages ?? []).find((tool) => tool.name === RESULT_TOOL_NAME);
    // Turn 1 declares { result: string }; turn 2 re-declares the tool with the turn's schema.
    expect(resultTool(first)?.parameters).toMatchObject({ properties: { result: { type: 'string' } }, required: ['result'] });
    expect(resultTool(wrong)?.parameters).toEqual(count);
    expect(resultTool(second)?.parameters).toEqual(count);
    // The { result } submission was refused in turn 2 and corrected in the same run.
    expect(second?.messages.filter((message) => message.role === 'toolResult').at(-1)).toMatchObject({ toolName: RESULT_TOOL_NAME, isError: true });
    // One transcript: the second session request still holds both user prompts.
    expect(transcript(second!).filter((message) => message.role === 'user').map((message) => message.text)).toEqual(['First', 'Second']);
    // Only the tool declaration changed, never the system prompt.
    expect(session.systemPrompt?.()).toBe(systemBefore);
  });

  it('uses the creation-time outputSchema for a prompt without a turn, and { result } for a turn without a schema', async () => {
    const declared: unknown[] = [];
    const capture: FauxResponseStep = (context) => {
      declared.push(getCurrentTools(context.messages).find((tool) => tool.name === RESULT_TOOL_NAME)?.parameters);
      return context.messages.filter((message) => message.role === 'user').length === 1 ? submit({ n: 1 }) : submit({ result: 'text' });
    };
    dir.faux.setResponses([capture, capture]);
    const outputSchema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const { session, progress } = await start({ options: { outputSchema } });
    await session.prompt('Count');
    await session.prompt('Describe', {});
    expect(results(progress)).toEqual([{ n: 1 }, { result: 'text' }]);
    expect(declared[0]).toEqual(outputSchema);
    expect(declared[1]).toMatchObject({ required: ['result'] });
  });

  it('rejects a turn whose schema cannot compile before anything is sent', async () => {
    const { session } = await start();
    await expect(session.prompt('Bad', { outputSchema: { type: 'nonsense' } })).rejects.toMatchObject({ code: 'INVALID_SCHEMA' });
    expect(session.state()).toBe('idle');
    expect(session.stats().turns).toBe(0);
  });
});
