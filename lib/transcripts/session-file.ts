/**
 * Parses a Pi session file (JSONL, version 3; Pi's docs/session-format.md): a
 * `session` header line, then entries linked into a tree by `id`/`parentId`.
 * Every line is validated with ajv; a line that is not JSON or not a valid
 * entry is reported and skipped, never guessed at. Unknown entry types and
 * message roles are kept as such (Pi adds them over time).
 */
// Not the kernel's index: `wfcli transcript` reads a session file without loading the engine.
import { WorkflowError, messageOf } from '../../kernel/errors.js';
import { compileOnFirstUse, formatAjvErrors, lazyAjv } from '../../kernel/json-schema.js';

export interface SessionHeader {
  readonly type: 'session';
  readonly id: string;
  readonly timestamp: string;
  readonly cwd: string;
  readonly version?: number;
  readonly parentSession?: string;
}

export interface SessionEntry {
  readonly type: string;
  readonly id: string;
  readonly parentId: string | null;
  readonly timestamp: string;
  readonly [field: string]: unknown;
}

export type ContentBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'thinking'; readonly thinking: string }
  | { readonly type: 'image'; readonly mimeType: string; readonly data: string }
  | { readonly type: 'toolCall'; readonly id: string; readonly name: string; readonly arguments: Readonly<Record<string, unknown>> };

export interface SessionFile {
  readonly header: SessionHeader;
  readonly entries: readonly SessionEntry[];
  /** Lines that could not be read, 1-based, with why. */
  readonly problems: readonly { readonly line: number; readonly message: string }[];
}

const ajv = lazyAjv({ strict: false });
const text = { type: 'string' } as const;
const blocks = (items: readonly object[]) => ({ type: 'array', items: { oneOf: items } }) as const;
const TEXT = { type: 'object', required: ['type', 'text'], properties: { type: { const: 'text' }, text } } as const;
const IMAGE = { type: 'object', required: ['type', 'mimeType'], properties: { type: { const: 'image' }, mimeType: text, data: text } } as const;
const THINKING = { type: 'object', required: ['type', 'thinking'], properties: { type: { const: 'thinking' }, thinking: text } } as const;
const TOOL_CALL = { type: 'object', required: ['type', 'id', 'name', 'arguments'], properties: { type: { const: 'toolCall' }, id: text, name: text, arguments: { type: 'object' } } } as const;
const USER_CONTENT = { oneOf: [text, blocks([TEXT, IMAGE])] } as const;

const validateHeader = compileOnFirstUse<SessionHeader>({
  type: 'object',
  required: ['type', 'id', 'timestamp', 'cwd'],
  properties: { type: { const: 'session' }, id: text, timestamp: text, cwd: text, version: { type: 'integer' }, parentSession: text },
}, ajv);
const validateEntry = compileOnFirstUse<SessionEntry>({
  type: 'object',
  required: ['type', 'id', 'parentId', 'timestamp'],
  properties: { type: text, id: text, parentId: { type: ['string', 'null'] }, timestamp: text },
}, ajv);

/** Message shapes by role (Pi's AgentMessage); other roles pass with just a role. */
const MESSAGE_SCHEMAS: Readonly<Record<string, object>> = {
  user: { required: ['content'], properties: { content: USER_CONTENT } },
  system: { properties: { content: USER_CONTENT } },
  assistant: { required: ['content'], properties: { content: blocks([TEXT, THINKING, TOOL_CALL]), model: text, provider: text, stopReason: text, errorMessage: text } },
  toolResult: { required: ['toolCallId', 'toolName', 'content', 'isError'], properties: { toolCallId: text, toolName: text, content: blocks([TEXT, IMAGE]), isError: { type: 'boolean' } } },
  bashExecution: { required: ['command', 'output'], properties: { command: text, output: text, exitCode: { type: ['integer', 'null'] } } },
  custom: { required: ['customType', 'content'], properties: { customType: text, content: USER_CONTENT } },
  branchSummary: { required: ['summary'], properties: { summary: text } },
  compactionSummary: { required: ['summary'], properties: { summary: text } },
};
const validateMessage = Object.fromEntries(
  Object.entries(MESSAGE_SCHEMAS).map(([role, schema]) => [role, compileOnFirstUse({ type: 'object', required: ['role'], ...schema, properties: { role: { const: role }, ...(schema as { properties: object }).properties } }, ajv)]),
);
const validateAnyMessage = compileOnFirstUse({ type: 'object', required: ['role'], properties: { role: text } }, ajv);

/** Fields other entry types must have for the transcript to show them. */
const ENTRY_SCHEMAS: Readonly<Record<string, object>> = {
  message: { required: ['message'], properties: { message: { type: 'object' } } },
  model_change: { required: ['provider', 'modelId'], properties: { provider: text, modelId: text } },
  thinking_level_change: { required: ['thinkingLevel'], properties: { thinkingLevel: text } },
  compaction: { required: ['summary'], properties: { summary: text } },
  branch_summary: { required: ['summary'], properties: { summary: text } },
  custom_message: { required: ['customType', 'content'], properties: { customType: text, content: USER_CONTENT } },
};
const validateByType = Object.fromEntries(Object.entries(ENTRY_SCHEMAS).map(([type, schema]) => [type, compileOnFirstUse({ type: 'object', ...schema }, ajv)]));

function entryProblem(entry: SessionEntry): string | undefined {
  const { type } = entry;
  const byType = validateByType[type];
  if (byType !== undefined && !byType(entry)) return `invalid ${type} entry: ${formatAjvErrors(byType.errors)}`;
  if (entry.type !== 'message') return undefined;
  const message = entry.message as { role?: unknown };
  const check = typeof message.role === 'string' ? (validateMessage[message.role] ?? validateAnyMessage) : validateAnyMessage;
  return check(message) ? undefined : `invalid message: ${formatAjvErrors(check.errors)}`;
}

export function parseSessionFile(content: string, where: string): SessionFile {
  const lines = content.split('\n');
  const problems: { line: number; message: string }[] = [];
  let header: SessionHeader | undefined;
  const entries: SessionEntry[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      // Without its header line the file is not a session file at all; a later bad line is one problem among the entries.
      if (header === undefined) throw new WorkflowError('INVALID_METADATA', `${where} is not a Pi session file: its first line is not JSON (${messageOf(error)})`, { path: where, line: index + 1 });
      problems.push({ line: index + 1, message: `not JSON: ${messageOf(error)}` });
      return;
    }
    if (header === undefined) {
      if (!validateHeader(value)) throw new WorkflowError('INVALID_METADATA', `${where} is not a Pi session file: its first line is not a session header (${formatAjvErrors(validateHeader.errors)})`, { path: where });
      header = value;
      return;
    }
    if (!validateEntry(value)) {
      problems.push({ line: index + 1, message: `invalid entry: ${formatAjvErrors(validateEntry.errors)}` });
      return;
    }
    const problem = entryProblem(value);
    if (problem === undefined) entries.push(value);
    else problems.push({ line: index + 1, message: problem });
  });
  if (header === undefined) throw new WorkflowError('INVALID_METADATA', `${where} is empty: a Pi session file starts with a session header`, { path: where });
  return { header, entries, problems };
}

/** The entries from the root to the last one (Pi's leaf when it opens the file), in order. */
export function currentBranch(entries: readonly SessionEntry[]): SessionEntry[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const branch: SessionEntry[] = [];
  const seen = new Set<string>();
  for (let entry = entries.at(-1); entry !== undefined && !seen.has(entry.id); entry = entry.parentId === null ? undefined : byId.get(entry.parentId)) {
    seen.add(entry.id);
    branch.push(entry);
  }
  return branch.reverse();
}
