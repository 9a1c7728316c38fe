/**
 * The private channel between the host and the `pi` in an agent's pane: one
 * Unix socket in a 0700 directory, newline-delimited JSON, every message
 * validated with ajv on the side that receives it. The pane's extension
 * reads its configuration from a 0600 file named by `PANE_CONFIG_ENV`.
 *
 * host → pane: `prompt` (a turn: text and the turn's result tool), `steer`,
 * `abort`, `tool_result`, `result_ack`, `shutdown`.
 * pane → host: `hello` (once: the session, model, system prompt, tools),
 * `turn_start`, `turn_end` (cumulative stats), `tool`, `tool_call`,
 * `result`, `agent_end`.
 */
import { compileOnFirstUse, lazyAjv, type LazyValidator, formatAjvErrors, type JsonSchema, type JsonValue } from '../../kernel/index.js';

export const PROTOCOL_VERSION = 1;
/** The pane configuration file; set in the pane's environment. */
export const PANE_CONFIG_ENV = 'PI_EXTENSIBLE_WORKFLOWS_PANE';
/** Spec 2 "Extension settings transport": the frozen extension settings, a private JSON file. */
export const SETTINGS_FILE_ENV = 'PI_EXTENSIBLE_WORKFLOWS_SETTINGS_FILE';
/** Longest line either side accepts, in UTF-16 code units (a turn's prompt, a tool result). */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;

/** A tool the pane's pi offers and the host judges (`workflow_result`) or runs (custom tools). */
export interface PaneTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
}

/** The pane's configuration file (0600, named by PANE_CONFIG_ENV). */
export interface PaneConfig {
  readonly version: number;
  readonly socket: string;
  readonly token: string;
  /** The result tool of the session's first turn; a later turn's `prompt` may bring another schema. */
  readonly resultTool: PaneTool;
  /** The custom tools (nested `agent`, `get_subagent_result`, setup hooks' tools) the host executes. */
  readonly customTools: readonly PaneTool[];
}

/** The launcher's file (0600): the pane program's argv and environment, read once and deleted. */
export interface LaunchSpec {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export interface PaneStats {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  readonly turns: number;
}

export type HostMessage =
  | { readonly type: 'prompt'; readonly text: string; readonly resultTool: PaneTool }
  | { readonly type: 'steer'; readonly text: string }
  | { readonly type: 'abort' }
  | { readonly type: 'tool_result'; readonly id: string; readonly ok: boolean; readonly text: string }
  | { readonly type: 'result_ack'; readonly id: string; readonly error?: string }
  | { readonly type: 'shutdown' };

export interface PaneHello {
  readonly type: 'hello';
  readonly version: number;
  readonly token: string;
  readonly sessionId: string;
  readonly sessionFile?: string;
  /** `provider/id:thinking` */
  readonly model?: string;
  readonly systemPrompt: string;
  readonly tools: readonly string[];
}

export type PaneMessage =
  | PaneHello
  | { readonly type: 'turn_start' }
  | { readonly type: 'turn_end'; readonly stats: PaneStats }
  | { readonly type: 'tool'; readonly name: string }
  | { readonly type: 'tool_call'; readonly id: string; readonly name: string; readonly params: JsonValue }
  | { readonly type: 'result'; readonly id: string; readonly params: JsonValue }
  | { readonly type: 'agent_end' };

const text = { type: 'string' } as const;
const names = { type: 'array', items: text } as const;
const count = { type: 'number', minimum: 0 } as const;
const tool = {
  type: 'object',
  required: ['name', 'description', 'parameters'],
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1 }, description: text, parameters: { type: 'object' } },
} as const;

function message(type: string, properties: Record<string, object> = {}, required: readonly string[] = Object.keys(properties)): object {
  return { type: 'object', additionalProperties: false, required: ['type', ...required], properties: { type: { const: type }, ...properties } };
}

const ajv = lazyAjv();

export const validatePaneConfig: LazyValidator<PaneConfig> = compileOnFirstUse<PaneConfig>({
  type: 'object',
  additionalProperties: false,
  required: ['version', 'socket', 'token', 'resultTool', 'customTools'],
  properties: { version: { type: 'integer' }, socket: text, token: text, resultTool: tool, customTools: { type: 'array', items: tool } },
}, ajv);

export const validateLaunchSpec: LazyValidator<LaunchSpec> = compileOnFirstUse<LaunchSpec>({
  type: 'object',
  additionalProperties: false,
  required: ['argv', 'env'],
  properties: { argv: { type: 'array', minItems: 1, items: text }, env: { type: 'object', additionalProperties: text } },
}, ajv);

export const validateHostMessage: LazyValidator<HostMessage> = compileOnFirstUse<HostMessage>({
  oneOf: [
    message('prompt', { text, resultTool: tool }),
    message('steer', { text }),
    message('abort'),
    message('tool_result', { id: text, ok: { type: 'boolean' }, text }),
    message('result_ack', { id: text, error: text }, ['id']),
    message('shutdown'),
  ],
}, ajv);

export const validatePaneMessage: LazyValidator<PaneMessage> = compileOnFirstUse<PaneMessage>({
  oneOf: [
    message(
      'hello',
      { version: { type: 'integer' }, token: text, sessionId: text, sessionFile: text, model: text, systemPrompt: text, tools: names },
      ['version', 'token', 'sessionId', 'systemPrompt', 'tools'],
    ),
    message('turn_start'),
    message('turn_end', {
      stats: { type: 'object', additionalProperties: false, required: ['inputTokens', 'outputTokens', 'costUsd', 'turns'], properties: { inputTokens: count, outputTokens: count, costUsd: count, turns: count } },
    }),
    message('tool', { name: text }),
    message('tool_call', { id: text, name: text, params: {} }),
    message('result', { id: text, params: {} }),
    message('agent_end'),
  ],
}, ajv);

/** Parses and validates one line; the error names what was wrong, never the content. */
export function parseLine<T>(line: string, validate: LazyValidator<T>, from: string): T {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new Error(`${from} sent a line that is not JSON`);
  }
  if (!validate(value)) throw new Error(`${from} sent an invalid message: ${formatAjvErrors(validate.errors)}`);
  return value;
}

/**
 * Splits a text stream into lines. A line longer than MAX_LINE_CHARS is a
 * protocol error (the peer is broken or hostile), reported once.
 */
export class LineSplitter {
  #buffer = '';
  readonly #onLine: (line: string) => void;
  readonly #onError: (error: Error) => void;
  #failed = false;

  constructor(onLine: (line: string) => void, onError: (error: Error) => void) {
    this.#onLine = onLine;
    this.#onError = onError;
  }

  push(chunk: string): void {
    if (this.#failed) return;
    this.#buffer += chunk;
    let newline = this.#buffer.indexOf('\n');
    while (newline >= 0) {
      const line = this.#buffer.slice(0, newline);
      this.#buffer = this.#buffer.slice(newline + 1);
      if (line !== '') this.#onLine(line);
      newline = this.#buffer.indexOf('\n');
    }
    if (this.#buffer.length > MAX_LINE_CHARS) {
      this.#failed = true;
      this.#onError(new Error(`a message exceeds ${MAX_LINE_CHARS} characters`));
    }
  }
}
