/**
 * Search across a run: its agents (label, ID, state, models), phases, logs,
 * warnings, checkpoints, tool and shell calls, and its transcripts. The
 * live viewer asks the server which transcripts mention the text (counts
 * only, so nothing of a transcript reaches the page unopened); a report
 * holds its transcripts and searches them here.
 */
import type { TrajectoryModel } from '../model.js';
import type { TranscriptView } from '../transcript.js';
import { countMatches, itemTexts } from '../search-text.js';
import { el } from './dom.js';

export interface SearchHit {
  readonly where: string;
  readonly text: string;
  /** An attempt whose transcript matched: the page offers to open it. */
  readonly transcript?: { readonly agentId: string; readonly attempt: number };
}

const matches = (text: string, needle: string): boolean => countMatches(text, needle) > 0;

export function searchModel(model: TrajectoryModel, query: string): SearchHit[] {
  const needle = query.toLowerCase();
  if (needle === '') return [];
  const hits: SearchHit[] = [];
  for (const agent of model.agents) {
    const models = agent.attempts.flatMap((attempt) => (attempt.model === null ? [] : [attempt.model]));
    if ([agent.label, agent.id, agent.state, ...models].some((text) => matches(text, needle))) hits.push({ where: 'agent', text: `${agent.label} · ${agent.state} · ${agent.id}` });
  }
  for (const phase of model.phases) if (matches(phase.phase, needle)) hits.push({ where: 'phase', text: phase.phase });
  for (const log of model.logs) if (matches(log.message, needle)) hits.push({ where: 'log', text: log.message });
  for (const warning of model.warnings) if (matches(warning.message, needle)) hits.push({ where: 'warning', text: warning.message });
  for (const checkpoint of model.checkpoints) if (matches(checkpoint.name, needle)) hits.push({ where: 'checkpoint', text: `${checkpoint.name} · ${checkpoint.state}` });
  for (const call of model.calls) if (matches(call.name, needle)) hits.push({ where: 'tool call', text: `${call.name} · ${call.status}` });
  for (const shell of model.shells) if (matches(shell.name, needle)) hits.push({ where: 'shell', text: shell.name });
  return hits;
}

export function transcriptHits(model: TrajectoryModel, found: readonly { readonly agentId: string; readonly attempt: number; readonly matches: number }[]): SearchHit[] {
  const labels = new Map(model.agents.map((agent) => [agent.id, agent.label]));
  return found.map((entry) => ({ where: 'transcript', text: `${labels.get(entry.agentId) ?? entry.agentId} · attempt ${entry.attempt} · ${entry.matches} match${entry.matches === 1 ? '' : 'es'}`, transcript: { agentId: entry.agentId, attempt: entry.attempt } }));
}

/** A report's own transcripts, counted like the server counts. */
export function searchTranscripts(transcripts: readonly TranscriptView[], query: string): { agentId: string; attempt: number; matches: number }[] {
  const needle = query.toLowerCase();
  return transcripts.flatMap((view) => {
    const count = view.items.reduce((sum, item) => sum + itemTexts(item).reduce((inner, text) => inner + countMatches(text, needle), 0), 0);
    return count > 0 ? [{ agentId: view.agentId, attempt: view.attempt, matches: count }] : [];
  });
}

/** The children of the page's `#search-results`. */
export function renderHits(hits: readonly SearchHit[], query: string): Node[] {
  if (query === '') return [];
  return [
    hits.length === 0
      ? el('p', { class: 'muted' }, [`Nothing matches "${query}".`])
      : el(
          'ul',
          { class: 'hits' },
          hits.map((hit) =>
            el('li', { 'data-where': hit.where }, [
              el('span', { class: 'muted' }, [`${hit.where}: `]),
              hit.transcript === undefined
                ? hit.text
                : el('button', { type: 'button', class: 'open-transcript link', 'data-agent': hit.transcript.agentId, 'data-attempt': String(hit.transcript.attempt) }, [hit.text]),
            ]),
          ),
        ),
  ];
}
