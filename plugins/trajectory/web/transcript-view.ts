/**
 * One attempt's transcript on the page: the effective system prompt
 * (collapsed), per-tool timing, then the conversation: user and assistant
 * messages as sanitized Markdown, thinking collapsed, each tool call with its
 * arguments, each result with its duration and whether it failed. Items that
 * match the search text are marked. Long texts show their start (long-text.ts).
 */
import type { TranscriptItemView, TranscriptView } from '../../../lib/trajectory/transcript.js';
import { countMatches, itemTexts } from '../../../lib/trajectory/search-text.js';
import { el, table } from './dom.js';
import { clock, duration } from './format.js';
import { markdown } from './markdown.js';
import { longText } from './long-text.js';
import { turnUsageText } from '../../../lib/usage-text.js';

const pre = (attributes: Readonly<Record<string, string>>) => (value: string) => el('pre', attributes, [value]);

function who(text: string, at: string, usage?: string): HTMLElement {
  return el('div', { class: 'who' }, [el('strong', {}, [text]), ' ', el('span', { class: 'muted' }, [clock(at)]), ...(usage === undefined ? [] : [' ', el('span', { class: 'muted usage' }, [usage])])]);
}

function item(entry: TranscriptItemView): HTMLElement {
  switch (entry.kind) {
    case 'user':
      return el('li', { class: 'msg msg-user', 'data-kind': 'user' }, [who('user', entry.at), longText(entry.text, markdown)]);
    case 'assistant':
      return el('li', { class: 'msg msg-assistant', 'data-kind': 'assistant' }, [
        who(`assistant${entry.model === undefined ? '' : ` · ${entry.model}`}`, entry.at, entry.usage === undefined ? undefined : turnUsageText(entry.usage)),
        ...entry.thinking.map((thought) => el('details', { class: 'thinking' }, [el('summary', {}, [`thinking (${thought.length} characters)`]), longText(thought, pre({}))])),
        ...(entry.text === '' ? [] : [longText(entry.text, markdown)]),
        ...entry.toolCalls.map((call) => el('div', { class: 'tool-call', 'data-tool': call.name, 'data-call': call.id }, [el('span', { class: 'tool-name mono' }, [`→ ${call.name}`]), longText(call.arguments, pre({ class: 'args' }))])),
        ...(entry.error === undefined ? [] : [el('div', { class: 'box error' }, [entry.error])]),
      ]);
    case 'tool':
      return el('li', { class: `msg msg-tool${entry.isError ? ' failed' : ''}`, 'data-kind': 'tool', 'data-tool': entry.name, 'data-call': entry.callId, 'data-error': String(entry.isError) }, [
        who(`${entry.name} ${entry.isError ? 'error' : 'result'}${entry.durationMs === undefined ? '' : ` · ${duration(entry.durationMs)}`}`, entry.at),
        longText(entry.result, pre({ class: 'result' })),
      ]);
    case 'note':
      return el('li', { class: 'msg msg-note', 'data-kind': 'note' }, [who(entry.label, entry.at), longText(entry.text, pre({}))]);
  }
}

export function renderTranscript(view: TranscriptView, label: string, query: string): HTMLElement {
  const needle = query.toLowerCase();
  const prompts = view.systemPrompts.map((prompt) =>
    el('details', { class: 'system-prompt' }, [el('summary', {}, [`Effective system prompt${view.systemPrompts.length > 1 ? ` (turn ${prompt.turn})` : ''}, ${prompt.text.length} characters`]), longText(prompt.text, pre({}))]),
  );
  const timing =
    view.tools.length === 0
      ? []
      : [table(['tool', 'calls', 'errors', 'total', 'longest'], view.tools.map((tool) => [tool.name, String(tool.calls), String(tool.errors), duration(tool.totalMs), duration(tool.maxMs)]), `tool-timing-${view.attempt}`)];
  const items = view.items.map((entry) => {
    const node = item(entry);
    if (needle !== '' && itemTexts(entry).some((text) => countMatches(text, needle) > 0)) node.classList.add('hit');
    return node;
  });
  return el('section', { class: 'transcript', 'data-agent': view.agentId, 'data-attempt': String(view.attempt) }, [
    el('h3', {}, [`${label} · attempt ${view.attempt}`]),
    el('p', { class: 'muted mono' }, [view.file]),
    ...(view.truncated ? [el('p', { class: 'box error' }, ['The session file is larger than the viewer reads: only its start is shown.'])] : []),
    ...view.problems.map((problem) => el('p', { class: 'box error' }, [problem])),
    ...prompts,
    ...timing,
    el('ol', { class: 'messages' }, items.length === 0 ? [el('li', { class: 'muted' }, ['No messages yet.'])] : items),
  ]);
}
