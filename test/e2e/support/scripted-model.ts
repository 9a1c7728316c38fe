/**
 * The model behind the `pi` processes of the e2e tests: an OpenAI-compatible
 * server on 127.0.0.1 that answers by who is asking. A workflow agent's
 * request (its tools include `workflow_result`) gets a `workflow_result`
 * call; a request of the main session goes to the test's `main` script.
 * Agent requests are counted per prompt, and a prompt can be held: its
 * request is never answered, so the test decides when the host dies.
 *
 * An agent whose prompt is `spawn:<task>` is a parent: it starts a child on
 * `<task>` with the `agent` tool, waits for it with `get_subagent_result`
 * and submits `<prompt>: done with (<child result>)`. `gatherParents(n)`
 * makes parents spawn only once `n` of them are running at once.
 */
import { startOpenAiServer, type RecordedRequest, type ScriptedTurn } from '../../support/pi-openai-server.js';

/** What the main session's request shows: its latest user prompt, the tool results since, the tools offered. */
export interface MainTurn {
  readonly prompt: string;
  readonly toolResults: readonly string[];
  readonly tools: readonly string[];
  /** The system prompt (system and developer messages). */
  readonly system: string;
}

/** May answer later (a promise): the main session's request stays open until then. */
export type MainScript = (turn: MainTurn) => ScriptedTurn | Promise<ScriptedTurn>;

/** What an agent's request shows: the text of its user messages (the prompt first, then steered ones), and its request count. */
export interface AgentTurn {
  readonly userTexts: readonly string[];
  readonly request: number;
}

/** Answers the agent requests of one prompt instead of the default `workflow_result` call. */
export type PromptScript = (turn: AgentTurn) => ScriptedTurn | Promise<ScriptedTurn>;

/** A workflow agent's request, for tests that answer agents themselves. */
export interface AgentRequest {
  /** The first user message: the agent's task. */
  readonly prompt: string;
  readonly model: string | undefined;
  readonly tools: readonly string[];
  /** The system prompt. */
  readonly system: string;
  readonly messages: readonly { readonly role: string; readonly content?: unknown }[];
  /** The parameters schema of each offered tool, by name (`workflow_result`'s is the result's shape). */
  readonly toolSchemas: Readonly<Record<string, unknown>>;
}

/** Answers an agent request, or undefined for the default answer. */
export type AgentScript = (request: AgentRequest) => ScriptedTurn | undefined;

export interface ScriptedModel {
  /** The models.json provider entry that points Pi at this server. */
  readonly provider: { baseUrl: string; api: 'openai-completions'; apiKey: string; models: { id: string }[] };
  /** Answers the main session's requests from now on. */
  main(script: MainScript): void;
  /** Answers the requests of agents with this prompt from now on (counted like any agent request). */
  agent(prompt: string, script: PromptScript): void;
  /** Requests of workflow agents so far, per prompt. */
  agentRequests(prompt: string): number;
  /** Every request the server received so far, main session and agents. */
  totalRequests(): number;
  /** The tools the first request of an agent with this prompt offered, sorted. */
  agentTools(prompt: string): readonly string[] | undefined;
  /** Leaves the next request of an agent with this prompt unanswered: for good, or until `until` settles. */
  holdNext(prompt: string, until?: Promise<unknown>): void;
  /** Settles once `count` agent requests with this prompt arrived. */
  waitForAgentRequest(prompt: string, count: number): Promise<void>;
  /** From now on a `spawn:` parent spawns its child only once `count` parents have asked for their first turn. */
  gatherParents(count: number): void;
  /** Answers workflow agents' requests from now on (undefined: the default answer); every agent request is logged in `agentLog`. */
  agents(script: AgentScript | undefined): void;
  readonly agentLog: AgentRequest[];
  close(): Promise<void>;
}

export const MODEL_ID = 'e2e-model';

/** The text of an OpenAI message content: a string or text parts. */
function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: { type?: unknown; text?: unknown }) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('');
}

type Message = { readonly role: string; readonly content?: unknown; readonly tool_calls?: readonly { readonly function: { readonly name: string } }[] };

/** The tool the agent called last and that call's result text, if any. */
function lastToolCall(messages: readonly Message[]): { name: string; result: string } | undefined {
  const index = messages.findLastIndex((message) => (message.tool_calls ?? []).length > 0);
  const name = messages[index]?.tool_calls?.[0]?.function.name;
  if (index < 0 || name === undefined) return undefined;
  return { name, result: text(messages.slice(index + 1).find((message) => message.role === 'tool')?.content) };
}

function systemText(messages: readonly { readonly role: string; readonly content?: unknown }[]): string {
  return messages.filter((message) => message.role === 'system' || message.role === 'developer').map((message) => text(message.content)).join('\n');
}

function mainTurn(request: RecordedRequest, tools: readonly string[]): MainTurn {
  const messages = request.body.messages ?? [];
  const last = messages.findLastIndex((message) => message.role === 'user');
  return {
    prompt: last < 0 ? '' : text(messages[last]?.content),
    toolResults: messages.slice(last + 1).filter((message) => message.role === 'tool').map((message) => text(message.content)),
    tools,
    system: systemText(messages),
  };
}

export interface ScriptedModelOptions {
  /** More model IDs of the provider besides MODEL_ID. */
  readonly extraModels?: readonly string[];
}

export async function startScriptedModel(options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const counts = new Map<string, number>();
  const held = new Map<string, Promise<unknown> | undefined>();
  const offered = new Map<string, readonly string[]>();
  const promptScripts = new Map<string, PromptScript>();
  const waiters: { prompt: string; count: number; resolve(): void }[] = [];
  let script: MainScript = () => ({ text: 'no main script' });
  let gathering: { readonly count: number; arrived: number; readonly all: Promise<void>; release(): void } | undefined;

  /** The next step of a `spawn:` parent. */
  const parentTurn = async (prompt: string, messages: readonly Message[]): Promise<ScriptedTurn> => {
    const last = lastToolCall(messages);
    if (last === undefined) {
      const gate = gathering;
      if (gate !== undefined) {
        gate.arrived += 1;
        if (gate.arrived >= gate.count) gate.release();
        await gate.all;
      }
      return { toolCalls: [{ name: 'agent', arguments: { prompt: prompt.slice('spawn:'.length), label: 'kid' } }] };
    }
    if (last.name === 'agent') return { toolCalls: [{ name: 'get_subagent_result', arguments: { id: (JSON.parse(last.result) as { id: string }).id } }] };
    if (last.name === 'get_subagent_result') {
      return { toolCalls: [{ name: 'workflow_result', arguments: { result: `${prompt}: done with (${(JSON.parse(last.result) as { result: string }).result})` } }] };
    }
    return { text: 'done' };
  };
  let agentScript: AgentScript | undefined;
  const agentLog: AgentRequest[] = [];

  /** Counts an agent request and wakes who waits for it; returns its count. */
  const arrived = (prompt: string): number => {
    const count = (counts.get(prompt) ?? 0) + 1;
    counts.set(prompt, count);
    for (const waiter of waiters.filter((entry) => entry.prompt === prompt && entry.count <= count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    return count;
  };

  const server = await startOpenAiServer((request) => {
    const tools = (request.body.tools ?? []).map((tool) => tool.function.name);
    if (!tools.includes('workflow_result')) return script(mainTurn(request, tools));
    const messages = request.body.messages ?? [];
    const prompt = text(messages.find((message) => message.role === 'user')?.content);
    if (!offered.has(prompt)) offered.set(prompt, [...tools].sort());
    const system = systemText(messages);
    const toolSchemas = Object.fromEntries((request.body.tools ?? []).map((tool) => [tool.function.name, tool.function.parameters]));
    const agentRequest: AgentRequest = { prompt, model: request.body.model, tools, system, messages, toolSchemas };
    agentLog.push(agentRequest);
    const custom = promptScripts.get(prompt);
    if (custom !== undefined) {
      const count = arrived(prompt);
      return custom({ userTexts: messages.filter((message) => message.role === 'user').map((message) => text(message.content)), request: count });
    }
    const scripted = agentScript?.(agentRequest);
    if (scripted !== undefined) return scripted;
    if (prompt.startsWith('spawn:')) {
      if (lastToolCall(messages) === undefined) arrived(prompt);
      return parentTurn(prompt, messages);
    }
    // After `workflow_result` Pi stops the agent; a further request would only need an end.
    if (messages.some((message) => message.role === 'tool')) return { text: 'done' };
    arrived(prompt);
    const answer: ScriptedTurn = { toolCalls: [{ name: 'workflow_result', arguments: { result: `${prompt}: done` } }] };
    if (held.has(prompt)) {
      const until = held.get(prompt);
      held.delete(prompt);
      return until === undefined ? new Promise<ScriptedTurn>(() => undefined) : until.then(() => answer);
    }
    return answer;
  });

  return {
    provider: { baseUrl: server.baseUrl, api: 'openai-completions', apiKey: 'e2e-key', models: [MODEL_ID, ...(options.extraModels ?? [])].map((id) => ({ id })) },
    main: (next) => {
      script = next;
    },
    agent: (prompt, next) => void promptScripts.set(prompt, next),
    agentRequests: (prompt) => counts.get(prompt) ?? 0,
    totalRequests: () => server.requests.length,
    agentTools: (prompt) => offered.get(prompt),
    holdNext: (prompt, until) => void held.set(prompt, until),
    gatherParents: (count) => {
      let release!: () => void;
      const all = new Promise<void>((resolve) => (release = resolve));
      gathering = { count, arrived: 0, all, release };
    },
    waitForAgentRequest: (prompt, count) =>
      (counts.get(prompt) ?? 0) >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ prompt, count, resolve })),
    agents: (next) => {
      agentScript = next;
    },
    agentLog,
    close: () => server.close(),
  };
}
