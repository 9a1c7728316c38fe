/**
 * One agent attempt's transcript as the viewer and the report show it, from
 * the attempt's native Pi session file (the `sessionFile` its `agentSessions`
 * reference names) and the run's system-prompt records: user and assistant
 * messages, thinking, tool calls with their arguments, results, errors and
 * durations, the effective system prompt, per-tool timing. Built only when
 * the user opens that attempt (or asks a report with transcripts): the run
 * model never carries any of it.
 *
 * The file is whatever a run directory names, so it is read defensively: an
 * absolute path to a regular file (never a FIFO), at most
 * TRANSCRIPT_MAX_BYTES from its start, every line validated
 * (lib/transcripts/session-file.ts). Long texts are cut.
 */
import { isAbsolute } from 'node:path';
import { messageOf } from '../../kernel/errors.js';
import { readFileStart } from '../transcripts/text.js';
import { currentBranch, parseSessionFile, type ContentBlock, type SessionEntry } from '../transcripts/session-file.js';
import { readSessions, readSystemPrompts } from '../run-files.js';
import { turnUsageOf, type TurnUsage } from '../usage-text.js';

export const TRANSCRIPT_VIEW_VERSION = 1;
/** The most of a session file one view reads. */
export const TRANSCRIPT_MAX_BYTES = 16 * 1024 * 1024;
/** The longest text, argument or result one item shows. */
export const TRANSCRIPT_TEXT_CHARS = 100_000;

export type TranscriptItemView =
  | { readonly kind: 'user'; readonly at: string; readonly text: string }
  | {
      readonly kind: 'assistant';
      readonly at: string;
      readonly model?: string;
      readonly text: string;
      readonly thinking: readonly string[];
      readonly toolCalls: readonly { readonly id: string; readonly name: string; readonly arguments: string }[];
      readonly error?: string;
      /** The turn's tokens and cost, as Pi recorded them. */
      readonly usage?: TurnUsage;
    }
  | { readonly kind: 'tool'; readonly at: string; readonly callId: string; readonly name: string; readonly result: string; readonly isError: boolean; readonly durationMs?: number }
  | { readonly kind: 'note'; readonly at: string; readonly label: string; readonly text: string };

export interface ToolTiming {
  readonly name: string;
  readonly calls: number;
  readonly errors: number;
  readonly totalMs: number;
  readonly maxMs: number;
}

export interface TranscriptView {
  readonly v: typeof TRANSCRIPT_VIEW_VERSION;
  readonly agentId: string;
  readonly attempt: number;
  readonly file: string;
  readonly sessionId?: string;
  readonly systemPrompts: readonly { readonly turn: number; readonly text: string }[];
  readonly items: readonly TranscriptItemView[];
  readonly tools: readonly ToolTiming[];
  /** The file was larger than TRANSCRIPT_MAX_BYTES: only its start is shown. */
  readonly truncated: boolean;
  readonly problems: readonly string[];
}

function cut(text: string): string {
  return text.length <= TRANSCRIPT_TEXT_CHARS ? text : `${text.slice(0, TRANSCRIPT_TEXT_CHARS)}\n… (${text.length - TRANSCRIPT_TEXT_CHARS} more characters)`;
}

function blocksText(content: unknown): string {
  if (typeof content === 'string') return cut(content);
  if (!Array.isArray(content)) return '';
  return cut(
    (content as ContentBlock[])
      .flatMap((block) => (block.type === 'text' ? [block.text] : block.type === 'image' ? [`(image ${block.mimeType}, ${block.data.length} base64 characters)`] : []))
      .join('\n'),
  );
}

function itemsOf(entries: readonly SessionEntry[]): TranscriptItemView[] {
  const calledAt = new Map<string, string>();
  const items: TranscriptItemView[] = [];
  for (const entry of entries) {
    const at = entry.timestamp;
    if (entry.type === 'model_change') items.push({ kind: 'note', at, label: 'model', text: `${String(entry['provider'])}/${String(entry['modelId'])}` });
    else if (entry.type === 'compaction' || entry.type === 'branch_summary') items.push({ kind: 'note', at, label: entry.type, text: cut(String(entry['summary'])) });
    else if (entry.type === 'custom_message') items.push({ kind: 'note', at, label: String(entry['customType']), text: blocksText(entry['content']) });
    if (entry.type !== 'message') continue;
    const message = entry['message'] as Record<string, unknown>;
    switch (message['role']) {
      case 'user':
        items.push({ kind: 'user', at, text: blocksText(message['content']) });
        break;
      case 'assistant': {
        const blocks = message['content'] as ContentBlock[];
        const toolCalls = blocks.flatMap((block) => (block.type === 'toolCall' ? [{ id: block.id, name: block.name, arguments: cut(JSON.stringify(block.arguments, null, 2)) }] : []));
        for (const call of toolCalls) calledAt.set(call.id, at);
        const model = typeof message['provider'] === 'string' && typeof message['model'] === 'string' ? `${message['provider']}/${message['model']}` : undefined;
        const error = typeof message['errorMessage'] === 'string' ? cut(message['errorMessage']) : undefined;
        const usage = turnUsageOf(message['usage']);
        items.push({
          kind: 'assistant',
          at,
          ...(model === undefined ? {} : { model }),
          text: cut(blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n\n')),
          thinking: blocks.flatMap((block) => (block.type === 'thinking' && block.thinking !== '' ? [cut(block.thinking)] : [])),
          toolCalls,
          ...(error === undefined ? {} : { error }),
          ...(usage === undefined ? {} : { usage }),
        });
        break;
      }
      case 'toolResult': {
        const callId = String(message['toolCallId']);
        const started = calledAt.get(callId);
        // The call's assistant message is written when the call is issued, the result when the tool ends.
        const durationMs = started === undefined ? undefined : Math.max(0, Date.parse(at) - Date.parse(started));
        items.push({ kind: 'tool', at, callId, name: String(message['toolName']), result: blocksText(message['content']), isError: message['isError'] === true, ...(durationMs === undefined || Number.isNaN(durationMs) ? {} : { durationMs }) });
        break;
      }
      case 'bashExecution':
        items.push({ kind: 'note', at, label: 'shell', text: cut(`$ ${String(message['command'])}\n${String(message['output'])}`) });
        break;
      case 'custom':
        items.push({ kind: 'note', at, label: String(message['customType']), text: blocksText(message['content']) });
        break;
      case 'branchSummary':
      case 'compactionSummary':
        items.push({ kind: 'note', at, label: String(message['role']), text: cut(String(message['summary'])) });
        break;
      default:
        // System prompt updates (Pi 1.x) repeat the prompt shown above; other roles carry no conversation.
        break;
    }
  }
  return items;
}

function toolTimings(items: readonly TranscriptItemView[]): ToolTiming[] {
  const byName = new Map<string, { calls: number; errors: number; totalMs: number; maxMs: number }>();
  for (const item of items) {
    if (item.kind !== 'tool') continue;
    const timing = byName.get(item.name) ?? { calls: 0, errors: 0, totalMs: 0, maxMs: 0 };
    timing.calls += 1;
    if (item.isError) timing.errors += 1;
    timing.totalMs += item.durationMs ?? 0;
    timing.maxMs = Math.max(timing.maxMs, item.durationMs ?? 0);
    byName.set(item.name, timing);
  }
  return [...byName].map(([name, timing]) => ({ name, ...timing })).sort((a, b) => b.totalMs - a.totalMs || (a.name < b.name ? -1 : 1));
}

/** The attempts whose reference names a session file, as `{ agentId, attempt, file }`. */
export function transcriptFiles(runDir: string): { agentId: string; attempt: number; file: string }[] {
  return [...readSessions(runDir)].flatMap(([agentId, references]) =>
    references.flatMap(({ attempt, reference }) => {
      const file = reference['sessionFile'];
      return typeof file === 'string' && isAbsolute(file) ? [{ agentId, attempt, file }] : [];
    }),
  );
}

/** The view of one attempt; undefined when its reference names no session file. A file that cannot be read is a view with a problem. */
export function buildTranscript(runDir: string, agentId: string, attempt: number): TranscriptView | undefined {
  const reference = readSessions(runDir).get(agentId)?.findLast((entry) => entry.attempt === attempt)?.reference;
  const file = reference?.['sessionFile'];
  if (typeof file !== 'string' || !isAbsolute(file)) return undefined;
  const systemPrompts = readSystemPrompts(runDir).filter((entry) => entry.agentId === agentId && entry.attempt === attempt && entry.text !== undefined).map((entry) => ({ turn: entry.turn, text: entry.text ?? '' }));
  const base = { v: TRANSCRIPT_VIEW_VERSION, agentId, attempt, file, systemPrompts } as const;
  let read: { text: string; size: number };
  try {
    read = readFileStart(file, TRANSCRIPT_MAX_BYTES);
  } catch (error) {
    return { ...base, items: [], tools: [], truncated: false, problems: [`the session file cannot be read: ${messageOf(error)}`] };
  }
  const truncated = read.size > TRANSCRIPT_MAX_BYTES;
  try {
    const session = parseSessionFile(read.text, file);
    const items = itemsOf(currentBranch(session.entries));
    // The last line of a cut file is torn: not a problem of the file.
    const problems = session.problems.filter((_problem, index) => !(truncated && index === session.problems.length - 1)).map((problem) => `line ${problem.line}: ${problem.message}`);
    return { ...base, sessionId: session.header.id, items, tools: toolTimings(items), truncated, problems };
  } catch (error) {
    return { ...base, items: [], tools: [], truncated, problems: [messageOf(error)] };
  }
}
