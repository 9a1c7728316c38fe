/**
 * What the dashboard opens read-only in the editor (spec 1 "/workflow
 * command" rule 5): the run script on the Workflow root; an agent's
 * effective system prompts and, for a completed top-level agent, its
 * journaled result. Agent prompts are not stored by the runtime, so there is
 * nothing to open for them. Pure: the command reads the files and opens them.
 * What the editor shows is `printableLines`: a stored body with controls in
 * it is shown, never acted on; the files stay as they are.
 */
import type { AgentSummary, JsonValue } from '../../../kernel/index.js';
import { printable, printableLines } from '../../../lib/terminal-text.js';

export interface StoredSystemPrompt {
  readonly agentId: string;
  readonly attempt: number;
  readonly turn: number;
  readonly sha256: string;
  /** The body under `.system-prompts/`; undefined when it is missing. */
  readonly text?: string;
}

/** What the command read from a run directory; `problems` names what could not be read. */
export interface RunFiles {
  readonly source?: string;
  readonly systemPrompts: readonly StoredSystemPrompt[];
  /** Journaled values of completed agents, by journal key (the agent ID). */
  readonly results: ReadonlyMap<string, JsonValue>;
  /** snapshot.json `agentSessions`: the session reference of each attempt, by agent ID. */
  readonly sessions: ReadonlyMap<string, readonly SessionReference[]>;
  readonly problems: readonly string[];
}

export interface SessionReference {
  readonly attempt: number;
  readonly reference: Readonly<Record<string, JsonValue>>;
}

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

/** A string result as it is; anything else as pretty JSON. */
function resultText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** System prompt records whose body is missing (a power loss can lose a body; the index survives). */
export function missingPromptBodies(agent: AgentSummary, files: RunFiles): number {
  return files.systemPrompts.filter((entry) => entry.agentId === agent.id && entry.text === undefined).length;
}
