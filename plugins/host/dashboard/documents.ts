/**
 * What the dashboard opens read-only in the editor (spec 1 "/workflow
 * command" rule 5): the run script on the Workflow root; an agent's
 * effective system prompts, the transcript of each attempt (its native
 * session file) and, for a completed top-level agent, its journaled result. Agent prompts are not stored by the runtime, so there is
 * nothing to open for them. Pure: the command reads the files and opens them.
 * What the editor shows is `printableLines`: a stored body with controls in
 * it is shown, never acted on; the files stay as they are.
 */
import type { AgentSummary, JsonValue } from '../../../kernel/index.js';
import { printable, printableLines } from '../../../lib/terminal-text.js';
import type { RunFiles } from '../../../lib/run-files.js';

export type { RunFiles, SessionReference, StoredSystemPrompt } from '../../../lib/run-files.js';

export interface DocumentAction {
  readonly kind: 'open';
  readonly label: string;
  /** The editor title; it says that edits are discarded. */
  readonly title: string;
  readonly text: string;
}

const READ_ONLY = 'read-only: changes are discarded';

function document(label: string, what: string, text: string): DocumentAction {
  return { kind: 'open', label, title: printable(`${what} (${READ_ONLY})`), text: printableLines(text) };
}

export function rootDocuments(runId: string, files: RunFiles): DocumentAction[] {
  return files.source === undefined ? [] : [document('Open run script (workflow.js)', `Run script of ${runId}`, files.source)];
}

export function agentDocuments(agent: AgentSummary, files: RunFiles): DocumentAction[] {
  const prompts = files.systemPrompts.filter((entry) => entry.agentId === agent.id);
  const documents = prompts.flatMap((entry) => {
    if (entry.text === undefined) return [];
    const which = `attempt ${entry.attempt}${entry.turn > 1 ? `, turn ${entry.turn}` : ''}`;
    return [document(`Open system prompt (${which})`, `System prompt of ${agent.label}, ${which}`, entry.text)];
  });
  // Nested children are not journaled: only top-level agents have a stored result.
  const result = agent.parentId === undefined && agent.state === 'completed' ? files.results.get(agent.id) : undefined;
  if (result !== undefined) documents.push(document('Open result', `Result of ${agent.label}`, resultText(result)));
  return documents;
}

/** An attempt's transcript: its native session file, read and shown only when chosen. */
export interface TranscriptAction {
  readonly kind: 'transcript';
  readonly label: string;
  readonly title: string;
  /** The session file the attempt's reference names (absolute). */
  readonly file: string;
}

/** One per attempt whose session reference names a session file (`sessionFile`, an absolute path). */
export function transcriptActions(agent: AgentSummary, files: RunFiles): TranscriptAction[] {
  return (files.sessions.get(agent.id) ?? []).flatMap(({ attempt, reference }) => {
    const file = reference['sessionFile'];
    if (typeof file !== 'string' || !file.startsWith('/')) return [];
    return [{ kind: 'transcript', label: `Open transcript (attempt ${attempt})`, title: printable(`Transcript of ${agent.label}, attempt ${attempt}: ${file} (${READ_ONLY})`), file }];
  });
}

/** A string result as it is; anything else as pretty JSON. */
function resultText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** System prompt records whose body is missing (a power loss can lose a body; the index survives). */
export function missingPromptBodies(agent: AgentSummary, files: RunFiles): number {
  return files.systemPrompts.filter((entry) => entry.agentId === agent.id && entry.text === undefined).length;
}
