/**
 * Search across a run's transcripts for the run page: which attempts mention
 * a text (case-insensitive), and how often, never the text around it, so
 * nothing of a transcript reaches the page before the user opens it.
 */
import { countMatches, itemTexts } from './search-text.js';
import { buildTranscript, transcriptFiles } from './transcript.js';

export function searchTranscripts(runDir: string, query: string): { agentId: string; attempt: number; matches: number }[] {
  const needle = query.toLowerCase();
  return transcriptFiles(runDir).flatMap(({ agentId, attempt }) => {
    const view = buildTranscript(runDir, agentId, attempt);
    const matches = (view?.items ?? []).reduce((sum, item) => sum + itemTexts(item).reduce((inner, text) => inner + countMatches(text, needle), 0), 0);
    return matches > 0 ? [{ agentId, attempt, matches }] : [];
  });
}
