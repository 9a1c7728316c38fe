/**
 * The host's judgement and handling of remote host tool calls
 * (call-check.ts, host-calls.ts) against a table served from memory: what is
 * refused and how, that a call runs once however many executions make it,
 * that a resumed host runs answered calls of the nested agent tools again
 * without answering them again while other tools' answered calls keep their
 * stored answers, and that a flood is refused past the bound without being read.
 */
import { describe, expect, it } from 'vitest';
import type { CustomToolDefinition, JsonValue } from '../../../kernel/index.js';
import { MAX_CALLS, MAX_REFUSAL_CHARS, checkCall, offeredTools } from '../../../plugins/remote-agents/call-check.js';
import { MAX_ARGUMENT_BYTES, MAX_NAME_CHARS, type CallAnswer, type CallRow } from '../../../plugins/remote-agents/call-log.js';
import { HostCalls } from '../../../plugins/remote-agents/host-calls.js';

const SPAWN = { type: 'object', additionalProperties: false, required: ['prompt'], properties: { prompt: { type: 'string' }, label: { type: 'string' } } } as const;

/** A tool that records what it ran and answers with a child's ID; `rerun` marks it as the engine marks its nested agent tools. */
function recorder(name = 'agent', rerun = false): { tool: CustomToolDefinition; ran: JsonValue[] } {
  const ran: JsonValue[] = [];
  return { ran, tool: { name, description: 'test', parameters: SPAWN, execute: async (params) => (ran.push(params), { id: `child-${ran.length}` }), ...(rerun ? { rerunOnReattach: true } : {}) } };
}

let nextId = 0;
const row = (name: string, args: string | undefined, extra: Partial<CallRow> = {}): CallRow => ({
  id: ++nextId,
  execution: 'e1',
  callId: `c${nextId}`,
  name,
  bytes: args === undefined ? MAX_ARGUMENT_BYTES + 1 : Buffer.byteLength(args),
  arguments: args,
  resources: undefined,
  answered: false,
  ...extra,
});

/** The calls table as the host reads it: rows after an ID, in order, bounded; answers kept once; `stored` are answers written before. */
function table(rows: CallRow[], stored = new Map<number, CallAnswer>()) {
  const answers = new Map<number, CallAnswer>();
  let reads = 0;
  let bulk: { after: number; answer: CallAnswer } | undefined;
  return {
    answers,
    reads: () => reads,
    bulk: () => bulk,
    log: () => ({
      after: async (_workflowId: string, after: number, limit: number) => (reads++, rows.filter((entry) => entry.id > after).slice(0, limit)),
      answer: async (id: number, answer: CallAnswer) => (answers.has(id) ? false : (answers.set(id, answer), true)),
      answerAllAfter: async (_workflowId: string, after: number, answer: CallAnswer) => void (bulk = { after, answer }),
      answerOf: async (id: number) => answers.get(id) ?? stored.get(id),
    }),
  };
}

/** Lets the answers' writes (started without being awaited) land. */
const settled = async (): Promise<void> => {
  for (let turn = 0; turn < 10; turn += 1) await new Promise((resolve) => setImmediate(resolve));
};

function hostCalls(log: ReturnType<typeof table>['log'], tools: CustomToolDefinition[], onCall: (resources: unknown) => void = () => undefined): HostCalls {
  const never = { wait: () => new Promise<void>(() => undefined), disarm: () => undefined };
  return new HostCalls({ workflowId: 'run/id/1', tools: offeredTools(tools), log, arm: () => never, listening: async () => undefined, onCall, fallbackMs: 1000 });
}

describe('host tool call checks', () => {
  const tools = offeredTools([recorder().tool]);

  it('accepts an offered tool with matching arguments and the agent resources', () => {
    const resources = { tools: ['read'], skills: [], extensions: [] };
    const checked = checkCall(row('agent', '{"prompt":"go"}', { resources: JSON.stringify(resources) }), tools);
    expect(checked).toMatchObject({ ok: true, params: { prompt: 'go' }, resources });
  });

  it('refuses with a typed, bounded error text naming the rule and the fix', () => {
    const refused = (entry: CallRow): string => {
      const checked = checkCall(entry, tools);
      if (checked.ok) throw new Error('accepted');
      expect(checked.refusal.failed).toBe(true);
      expect(checked.refusal.text.length).toBeLessThanOrEqual(MAX_REFUSAL_CHARS);
      return checked.refusal.text;
    };
    expect(refused(row('rm_rf', '{}'))).toBe('UNKNOWN_TOOL: the host tool "rm_rf" was not offered to this remote attempt (it offers agent); call one of those');
    expect(refused(row('__proto__', '{}'))).toMatch(/^UNKNOWN_TOOL: /);
    expect(refused(row('x'.repeat(MAX_NAME_CHARS + 1), '{}'))).toMatch(/^TOOL_FAILED: a host tool call's name, call ID or execution is longer than/);
    expect(refused(row('agent', undefined))).toMatch(/^RPC_LIMIT_EXCEEDED: the arguments of agent are 262145 bytes, more than the 262144/);
    expect(refused(row('agent', '{"prompt":'))).toMatch(/^TOOL_FAILED: the arguments of agent are not JSON/);
    expect(refused(row('agent', '["go"]'))).toMatch(/^TOOL_FAILED: the arguments of agent must be an object/);
    expect(refused(row('agent', '{"prompt":5,"extra":true}'))).toBe('TOOL_FAILED: the arguments of agent do not match its parameters: (root) has unknown key "extra"; /prompt must be string; call it again with arguments that do');
    expect(refused(row('agent', '{"prompt":"go"}', { resources: '{"tools":"all"}' }))).toMatch(/^TOOL_FAILED: the call of agent carries malformed resources of its agent/);
    // A schema ajv cannot compile refuses its tool's calls instead of running them unchecked.
    const broken = offeredTools([{ ...recorder('odd').tool, parameters: { type: 'no-such-type' } }]);
    const checked = checkCall(row('odd', '{}'), broken);
    expect(checked.ok ? '' : checked.refusal.text).toMatch(/^TOOL_FAILED: the arguments of odd do not match its parameters: the host cannot check the arguments of odd/);
  });
});

describe('host tool calls', () => {
  it('runs each call once in row order and answers it; another execution making the same calls is answered from them', async () => {
    const spawn = recorder();
    const rows = [row('agent', '{"prompt":"a"}'), row('agent', '{"prompt":"b"}'), row('agent', '{"prompt":"a"}')];
    const db = table(rows);
    const seen: unknown[] = [];
    const calls = hostCalls(db.log, [spawn.tool], (resources) => seen.push(resources));
    await calls.read();
    await settled();
    expect(spawn.ran).toEqual([{ prompt: 'a' }, { prompt: 'b' }, { prompt: 'a' }]);
    expect([...db.answers.values()].map((answer) => answer.text)).toEqual(['{"id":"child-1"}', '{"id":"child-2"}', '{"id":"child-3"}']);
    // A recovered execution repeats the first two calls, then makes a new one: only the new one runs.
    rows.push(row('agent', '{"prompt":"a"}', { execution: 'e2' }), row('agent', '{"prompt":"b"}', { execution: 'e2' }), row('agent', '{"prompt":"c"}', { execution: 'e2' }));
    await calls.read();
    await settled();
    expect(spawn.ran).toHaveLength(4);
    expect(rows.slice(3).map((entry) => db.answers.get(entry.id)?.text)).toEqual(['{"id":"child-1"}', '{"id":"child-2"}', '{"id":"child-4"}']);
    expect(seen).toHaveLength(4);
  });

  it('a resumed host runs answered calls of the nested agent tools again (the journal rebuilds their state) without answering them again, and answers the rest', async () => {
    const spawn = recorder('agent', true);
    const rows = [row('agent', '{"prompt":"a"}', { answered: true }), row('agent', '{"prompt":"b"}')];
    const db = table(rows);
    await hostCalls(db.log, [spawn.tool]).read();
    await settled();
    expect(spawn.ran).toEqual([{ prompt: 'a' }, { prompt: 'b' }]);
    expect([...db.answers.keys()]).toEqual([rows[1]?.id]);
  });

  it("a resumed host never runs another tool's answered call again: a later execution repeating it gets the stored answer", async () => {
    const hook = recorder('deploy');
    const rows = [row('deploy', '{"prompt":"a"}', { answered: true }), row('deploy', '{"prompt":"b"}')];
    const db = table(rows, new Map([[rows[0]!.id, { failed: false, text: '{"id":"deployed-before"}' }]]));
    const calls = hostCalls(db.log, [hook.tool]);
    await calls.read();
    await settled();
    expect(hook.ran).toEqual([{ prompt: 'b' }]);
    expect([...db.answers.keys()]).toEqual([rows[1]?.id]);
    // A recovered execution repeats the answered call: it gets the answer stored before the host resumed, and nothing runs.
    rows.push(row('deploy', '{"prompt":"a"}', { execution: 'e2' }));
    await calls.read();
    await settled();
    expect(hook.ran).toHaveLength(1);
    expect(db.answers.get(rows[2]!.id)?.text).toBe('{"id":"deployed-before"}');
  });

  it("a tool's error is its answer; a refused call is answered without running anything", async () => {
    const failing: CustomToolDefinition = { name: 'get_subagent_result', description: 'test', parameters: { type: 'object' }, execute: async () => Promise.reject(new Error('no child agent has the id "x"')) };
    const rows = [row('get_subagent_result', '{"id":"x"}'), row('nope', '{}')];
    const db = table(rows);
    await hostCalls(db.log, [failing]).read();
    await settled();
    expect(db.answers.get(rows[0]?.id ?? 0)).toEqual({ failed: true, text: 'no child agent has the id "x"' });
    expect(db.answers.get(rows[1]?.id ?? 0)?.text).toMatch(/^UNKNOWN_TOOL: /);
  });

  it(`reads at most ${MAX_CALLS} calls; the rest are refused in one statement, unread`, async () => {
    const spawn = recorder();
    const rows = Array.from({ length: MAX_CALLS + 500 }, (_, index) => row('agent', JSON.stringify({ prompt: `p${index}` })));
    const db = table(rows);
    await hostCalls(db.log, [spawn.tool]).read();
    await settled();
    expect(spawn.ran).toHaveLength(MAX_CALLS);
    expect(db.answers.size).toBe(MAX_CALLS);
    expect(db.bulk()).toEqual({ after: rows[MAX_CALLS - 1]?.id, answer: { failed: true, text: `TOOL_FAILED: this remote attempt made more than ${MAX_CALLS} host tool calls; finish the task with the results you have` } });
    // Pages are bounded: the 256 rows took 16 reads, not one unbounded one.
    expect(db.reads()).toBe(MAX_CALLS / 16);
  });

  it('the end of the turn aborts the tools still running and stops the following', async () => {
    let signal: AbortSignal | undefined;
    const slow: CustomToolDefinition = { name: 'agent', description: 'test', parameters: SPAWN, execute: (_params, given) => ((signal = given), new Promise(() => undefined)) };
    const db = table([row('agent', '{"prompt":"a"}')]);
    const stop = new AbortController();
    const woken = { wait: (given: AbortSignal) => new Promise<void>((_resolve, reject) => given.addEventListener('abort', () => reject(new Error('aborted')))), disarm: () => undefined };
    const calls = new HostCalls({ workflowId: 'run/id/1', tools: offeredTools([slow]), log: db.log, arm: () => woken, listening: async () => undefined, onCall: () => undefined, fallbackMs: 1000 });
    const following = calls.follow(stop.signal);
    while (signal === undefined) await new Promise((resolve) => setImmediate(resolve));
    expect(signal.aborted).toBe(false);
    stop.abort();
    await following;
    expect(signal.aborted).toBe(true);
    expect(db.answers.size).toBe(0);
  });
});
