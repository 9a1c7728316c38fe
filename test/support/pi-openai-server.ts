/**
 * A scripted OpenAI-compatible chat-completions server on 127.0.0.1
 * (`POST /v1/chat/completions`, streaming SSE) built on node:http, so a Pi
 * session exercises the full HTTP path a user's real provider takes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolCall {
  readonly name: string;
  readonly arguments: unknown;
}

export interface ScriptedTurn {
  readonly text?: string;
  readonly toolCalls?: readonly ScriptedToolCall[];
  readonly usage?: { readonly promptTokens: number; readonly completionTokens: number };
  /** Answer with this HTTP status and an error body instead of a stream. */
  readonly status?: number;
}

export interface RecordedRequest {
  readonly authorization: string | undefined;
  readonly body: {
    readonly model?: string;
    readonly stream?: boolean;
    readonly messages?: readonly { readonly role: string; readonly content?: unknown }[];
    readonly tools?: readonly { readonly function: { readonly name: string; readonly parameters?: unknown } }[];
  };
}

export interface OpenAiServer {
  /** `http://127.0.0.1:<port>/v1`: the `baseUrl` of a models.json provider. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/** May answer later (a promise), e.g. to hold a request open until the client goes away. */
export type Responder = (request: RecordedRequest, index: number) => ScriptedTurn | Promise<ScriptedTurn>;

function chunk(id: string, model: string, delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> {
  return { id, object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta, finish_reason: finishReason }] };
}

/** The SSE `data:` payloads of one streamed completion; tool arguments arrive in two pieces. */
export function streamChunks(turn: ScriptedTurn, model: string, id: string): Record<string, unknown>[] {
  const chunks: Record<string, unknown>[] = [chunk(id, model, { role: 'assistant', content: '' })];
  if (turn.text !== undefined) chunks.push(chunk(id, model, { content: turn.text }));
  (turn.toolCalls ?? []).forEach((call, index) => {
    const args = JSON.stringify(call.arguments);
    const half = Math.floor(args.length / 2);
    chunks.push(chunk(id, model, { tool_calls: [{ index, id: `call_${id}_${index}`, type: 'function', function: { name: call.name, arguments: args.slice(0, half) } }] }));
    chunks.push(chunk(id, model, { tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
  });
  chunks.push(chunk(id, model, {}, (turn.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop'));
  const usage = turn.usage ?? { promptTokens: 10, completionTokens: 5 };
  chunks.push({
    id,
    object: 'chat.completion.chunk',
    created: 0,
    model,
    choices: [],
    usage: { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.promptTokens + usage.completionTokens },
  });
  return chunks;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

export async function startOpenAiServer(respond: Responder): Promise<OpenAiServer> {
  const requests: RecordedRequest[] = [];
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const recorded: RecordedRequest = { authorization: request.headers.authorization, body: JSON.parse(await readBody(request)) as RecordedRequest['body'] };
    requests.push(recorded);
    const turn = await respond(recorded, requests.length - 1);
    if (turn.status !== undefined) {
      response.writeHead(turn.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `scripted ${turn.status}` } }));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    for (const data of streamChunks(turn, recorded.body.model ?? 'model', `chatcmpl-${requests.length}`)) response.write(`data: ${JSON.stringify(data)}\n\n`);
    response.end('data: [DONE]\n\n');
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
