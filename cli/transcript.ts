/**
 * `wfcli transcript <session-file> [--all] [--tail <n>] [--max-chars <n>] [--json]`:
 * a readable, bounded view of a Pi session file (session-file.ts): user and
 * assistant messages, tool calls with their arguments, tool results, model
 * changes, compactions and summaries. Only the current branch (root to the
 * last entry) unless `--all`; every text is cut to `--max-chars`; thinking is
 * shown by size only; images by type and size. The file is read bounded
 * (session-read.ts): a regular file only, at most 16 MB of it, its end for
 * `--tail`.
 */
import { resolve } from 'node:path';
import { printable, printableLines } from '../lib/terminal-text.js';
import { EXIT_OK, JSON_OPTION, UsageError, flag, printJson, stringOption, type CliIo, type CommandSpec, type ParsedCommand } from './command.js';
import { currentBranch, type ContentBlock, type SessionEntry } from '../lib/transcripts/session-file.js';
import { readSessionBounded, type SessionRead } from '../lib/transcripts/session-read.js';
import { turnUsageOf, turnUsageText, type TurnUsage } from '../lib/usage-text.js';

const DEFAULT_MAX_CHARS = 2000;

/** One shown item of the transcript. */
export interface TranscriptItem {
  readonly id: string;
  readonly at: string;
  /** `user`, `assistant`, `tool_result`, `model`, `compaction`, ... */
  readonly kind: string;
  readonly text: string;
  /** Assistant tool calls: name and arguments (cut like text). */
  readonly toolCalls?: readonly { readonly id: string; readonly name: string; readonly arguments: string }[];
  /** Tool results: which tool, and whether it failed. */
  readonly tool?: { readonly name: string; readonly callId: string; readonly isError: boolean };
  /** Assistant turns: tokens and cost as Pi recorded them. */
  readonly usage?: TurnUsage;
}

export function bound(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

function contentText(content: unknown, max: number): string {
  if (typeof content === 'string') return bound(content, max);
  if (!Array.isArray(content)) return '';
  const parts = (content as ContentBlock[]).flatMap((block) => {
    if (block.type === 'text') return [block.text];
    if (block.type === 'thinking') return [`(thinking, ${block.thinking.length} characters)`];
    if (block.type === 'image') return [`(image ${block.mimeType}, ${block.data.length} base64 characters)`];
    return [];
  });
  return bound(parts.join('\n'), max);
}

function messageItem(entry: SessionEntry, max: number): TranscriptItem | undefined {
  const message = entry.message as Record<string, unknown>;
  const base = { id: entry.id, at: entry.timestamp };
  switch (message.role) {
    case 'user':
      return { ...base, kind: 'user', text: contentText(message.content, max) };
    case 'assistant': {
      const calls = (message.content as ContentBlock[]).flatMap((block) => (block.type === 'toolCall' ? [{ id: block.id, name: block.name, arguments: bound(JSON.stringify(block.arguments), max) }] : []));
      const error = typeof message.errorMessage === 'string' ? `\n(error: ${bound(message.errorMessage, max)})` : '';
      const model = typeof message.provider === 'string' && typeof message.model === 'string' ? `assistant ${message.provider}/${message.model}` : 'assistant';
      const usage = turnUsageOf(message.usage);
      return { ...base, kind: model, text: `${contentText(message.content, max)}${error}`, ...(calls.length > 0 ? { toolCalls: calls } : {}), ...(usage === undefined ? {} : { usage }) };
    }
    case 'toolResult':
      return { ...base, kind: 'tool_result', text: contentText(message.content, max), tool: { name: String(message.toolName), callId: String(message.toolCallId), isError: message.isError === true } };
    case 'bashExecution':
      return { ...base, kind: 'bash', text: bound(`$ ${String(message.command)}\n${String(message.output)}`, max) };
    case 'custom':
      return { ...base, kind: `custom ${String(message.customType)}`, text: contentText(message.content, max) };
    case 'branchSummary':
    case 'compactionSummary':
      return { ...base, kind: String(message.role), text: bound(String(message.summary), max) };
    case 'system':
      // The prompt and tool loadout: long and repeated; shown by size.
      return { ...base, kind: 'system', text: `(system prompt update, ${JSON.stringify(message).length} characters)` };
    default:
      return { ...base, kind: `message ${String(message.role)}`, text: '' };
  }
}

export function transcriptItems(entries: readonly SessionEntry[], max: number): TranscriptItem[] {
  return entries.flatMap((entry): TranscriptItem[] => {
    const base = { id: entry.id, at: entry.timestamp };
    switch (entry.type) {
      case 'message':
        return [messageItem(entry, max)].filter((item): item is TranscriptItem => item !== undefined);
      case 'model_change':
        return [{ ...base, kind: 'model', text: `${String(entry.provider)}/${String(entry.modelId)}` }];
      case 'thinking_level_change':
        return [{ ...base, kind: 'thinking_level', text: String(entry.thinkingLevel) }];
      case 'compaction':
      case 'branch_summary':
        return [{ ...base, kind: entry.type, text: bound(String(entry.summary), max) }];
      case 'custom_message':
        return [{ ...base, kind: `custom ${String(entry.customType)}`, text: contentText(entry.content, max) }];
      default:
        // Labels, session info, extension state, usage and context edits are not conversation.
        return [];
    }
  });
}

/** The text of an item; what came from the session file is `printable` (names) or `printableLines` (texts, indented). */
export function formatItem(item: TranscriptItem): string {
  const time = printable(item.at.length >= 19 ? item.at.slice(11, 19) : item.at);
  const kind = item.usage === undefined ? item.kind : `${item.kind} (${turnUsageText(item.usage)})`;
  const head = printable(item.tool === undefined ? kind : `tool result ${item.tool.name}${item.tool.isError ? ' (error)' : ''}`);
  const indent = (text: string): string => printableLines(text).split('\n').join('\n    ');
  const lines = [`[${time}] ${head}:${item.text === '' ? '' : ` ${indent(item.text)}`}`];
  for (const call of item.toolCalls ?? []) lines.push(`    -> ${printable(call.name)} ${indent(call.arguments)}`);
  return lines.join('\n');
}

/** What a partial read left out, in words. */
function windowNote(file: SessionRead): string | undefined {
  if (file.window === undefined) return undefined;
  const { part, bytes } = file.window;
  return part === 'start'
    ? `(the session file has ${file.size} bytes; only its first ${bytes} are read: --tail <n> shows its end)`
    : `(the session file has ${file.size} bytes; only its header and last ${bytes} are read; --all and the branch start there)`;
}

function positive(text: string | undefined, name: string, fallback: number | undefined): number | undefined {
  if (text === undefined) return fallback;
  if (!/^[1-9]\d*$/.test(text)) throw new UsageError(`${name} takes a positive whole number, not "${text}"`);
  return Number(text);
}

async function run(parsed: ParsedCommand, io: CliIo): Promise<number> {
  const max = positive(stringOption(parsed, 'max-chars'), '--max-chars', DEFAULT_MAX_CHARS) ?? DEFAULT_MAX_CHARS;
  const tail = positive(stringOption(parsed, 'tail'), '--tail', undefined);
  const path = resolve(io.cwd, parsed.positionals[0] ?? '');
  const file = readSessionBounded(path, { fromEnd: tail !== undefined });
  const entries = flag(parsed, 'all') ? file.entries : currentBranch(file.entries);
  const all = transcriptItems(entries, max);
  const items = tail === undefined ? all : all.slice(-tail);
  if (flag(parsed, 'json')) {
    printJson(io, { header: file.header, items, omitted: all.length - items.length, problems: file.problems, ...(file.window === undefined ? {} : { window: { ...file.window, size: file.size } }) });
    return EXIT_OK;
  }
  const { header } = file;
  io.stdout(`${printable(`session ${header.id} (version ${header.version ?? 1}), cwd ${header.cwd}, started ${header.timestamp}`)}\n`);
  const note = windowNote(file);
  if (note !== undefined) io.stdout(`${note}\n`);
  if (all.length > items.length) io.stdout(`(${all.length - items.length} earlier item(s) left out by --tail)\n`);
  for (const item of items) io.stdout(`${formatItem(item)}\n`);
  for (const problem of file.problems) io.stderr(`warning: line ${problem.line}: ${printable(problem.message)}\n`);
  return EXIT_OK;
}

export const transcriptCommand: CommandSpec = {
  name: 'transcript',
  usage: ['wfcli transcript <session-file> [--all] [--tail <n>] [--max-chars <n>] [--json]'],
  help: `  --all            every entry in file order, not only the current branch
  --tail <n>       only the last n items
  --max-chars <n>  cut each text, tool argument and result to n characters (default ${DEFAULT_MAX_CHARS})
  --json           {header, items, omitted, problems} instead of text

Shows user and assistant messages (with the model), tool calls and their
arguments, tool results (marked when they failed), shell commands, model and
thinking-level changes, compactions and summaries. Thinking and images are
shown by size. Every line of the file is validated; a line that is not a valid
entry is named in a warning and skipped. At most 16 MB of the file is read:
its start, or with --tail its header and its end (the output says so); only
a regular file is read. Pi keeps session files under
<agent dir>/sessions/; workflow agents' are in a workflows/<run-id>/ folder
of the run's project there (wfcli inspect names each attempt's file).`,
  options: { all: { type: 'boolean' }, tail: { type: 'string' }, 'max-chars': { type: 'string' }, ...JSON_OPTION },
  positionals: { min: 1, max: 1 },
  run,
};
