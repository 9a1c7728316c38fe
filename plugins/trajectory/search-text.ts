/** What search reads of a transcript item, and how it counts: shared by the server and the page (no Node imports). */
import type { TranscriptItemView } from './transcript.js';

/** The searchable texts of one item: messages, thinking, tool names, arguments and results. */
export function itemTexts(item: TranscriptItemView): string[] {
  switch (item.kind) {
    case 'user':
      return [item.text];
    case 'assistant':
      return [item.text, ...item.thinking, ...item.toolCalls.flatMap((call) => [call.name, call.arguments]), item.error ?? ''];
    case 'tool':
      return [item.name, item.result];
    case 'note':
      return [item.label, item.text];
  }
}

export function countMatches(text: string, needle: string): number {
  if (needle === '') return 0;
  const haystack = text.toLowerCase();
  let count = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

