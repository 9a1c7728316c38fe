/**
 * The model behind the `pi` processes of the e2e tests: an OpenAI-compatible
 * server on 127.0.0.1 that answers by who is asking. A workflow agent's
 * request (its tools include `workflow_result`) gets a `workflow_result`
 * call; a request of the main session goes to the test's `main` script.
 * Agent requests are counted per prompt, and a prompt can be held: its
 * request is never answered, so the test decides when the host dies.
 */
import { startOpenAiServer, type RecordedRequest, type ScriptedTurn } from '../../support/pi-openai-server.js';

/** What the main session's request shows: its latest user prompt, the tool results since, the tools offered. */
export interface MainTurn {
  readonly prompt: string;
  readonly toolResults: readonly string[];
  readonly tools: readonly string[];
}

export type MainScript = (turn: MainTurn) => ScriptedTurn;

export interface ScriptedModel {
  /** The models.json provider entry that points Pi at this server. */
  readonly provider: { baseUrl: string; api: 'openai-completions'; apiKey: string; models: { id: string }[] };
  /** Answers the main session's requests from now on. */
  main(script: MainScript): void;
  /** Requests of workflow agents so far, per prompt. */
  agentRequests(prompt: string): number;
  /** Every request the server received so far, main session and agents. */
  totalRequests(): number;
  /** Leaves the next request of an agent with this prompt unanswered, for good. */
  holdNext(prompt: string): void;
  /** Settles once `count` agent requests with this prompt arrived. */
  waitForAgentRequest(prompt: string, count: number): Promise<void>;
  close(): Promise<void>;
}

export const MODEL_ID = 'e2e-model';

/** The text of an OpenAI message content: a string or text parts. */
function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: { type?: unknown; text?: unknown }) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('');
}

function mainTurn(request: RecordedRequest, tools: readonly string[]): MainTurn {
  const messages = request.body.messages ?? [];
  const last = messages.findLastIndex((message) => message.role === 'user');
  return {
    prompt: last < 0 ? '' : text(messages[last]?.content),
    toolResults: messages.slice(last + 1).filter((message) => message.role === 'tool').map((message) => text(message.content)),
    tools,
  };
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  const counts = new Map<string, number>();
  const held = new Set<string>();
  const waiters: { prompt: string; count: number; resolve(): void }[] = [];
  let script: MainScript = () => ({ text: 'no main script' });

  const server = await startOpenAiServer((request) => {
    const tools = (request.body.tools ?? []).map((tool) => tool.function.name);
    if (!tools.includes('workflow_result')) return script(mainTurn(request, tools));
    const messages = request.body.messages ?? [];
    const prompt = text(messages.find((message) => message.role === 'user')?.content);
    // After `workflow_result` Pi stops the agent; a further request would only need an end.
    if (messages.some((message) => message.role === 'tool')) return { text: 'done' };
    counts.set(prompt, (counts.get(prompt) ?? 0) + 1);
    for (const waiter of waiters.filter((entry) => entry.prompt === prompt && entry.count <= (counts.get(prompt) ?? 0))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    if (held.delete(prompt)) return new Promise<ScriptedTurn>(() => undefined);
    return { toolCalls: [{ name: 'workflow_result', arguments: { result: `${prompt}: done` } }] };
  });

  return {
    provider: { baseUrl: server.baseUrl, api: 'openai-completions', apiKey: 'e2e-key', models: [{ id: MODEL_ID }] },
    main: (next) => {
      script = next;
    },
    agentRequests: (prompt) => counts.get(prompt) ?? 0,
    totalRequests: () => server.requests.length,
    holdNext: (prompt) => void held.add(prompt),
    waitForAgentRequest: (prompt, count) =>
      (counts.get(prompt) ?? 0) >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ prompt, count, resolve })),
    close: () => server.close(),
  };
}
