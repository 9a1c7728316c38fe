/**
 * A finished pane session as plain text, for read-only inspection: the
 * messages of Pi's session file (JSONL), each line parsed on its own so a
 * torn last line (a pane killed mid-write) costs only that line.
 */
import { readFileSync } from 'node:fs';

type Part = { readonly type?: unknown; readonly text?: unknown; readonly name?: unknown; readonly arguments?: unknown; readonly thinking?: unknown };

function partsOf(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return (content as Part[]).flatMap((part) => {
    if (part.type === 'text' && typeof part.text === 'string') return [part.text];
    if (part.type === 'toolCall' && typeof part.name === 'string') return [`→ ${part.name} ${JSON.stringify(part.arguments ?? {})}`];
    return [];
  });
}

export function renderTranscript(jsonl: string): string {
  const out: string[] = [];
  for (const line of jsonl.split('\n')) {
    if (line.trim() === '') continue;
    let entry: { type?: unknown; message?: { role?: unknown; content?: unknown; toolName?: unknown; isError?: unknown } };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      out.push('[an unreadable line]');
      continue;
    }
    const message = entry.message;
    if (entry.type !== 'message' || message === undefined || typeof message.role !== 'string') continue;
    const heading =
      message.role === 'toolResult' ? `── ${typeof message.toolName === 'string' ? message.toolName : 'tool'} ${message.isError === true ? 'error' : 'result'}` : `── ${message.role}`;
    out.push(heading, ...partsOf(message.content), '');
  }
  return out.join('\n');
}

export function readTranscript(sessionFile: string): string {
  return renderTranscript(readFileSync(sessionFile, 'utf8'));
}
