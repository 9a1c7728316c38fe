/**
 * The log messages of runs nobody watches in a live tool item (background
 * runs, and foreground runs whose wait was moved to the background or
 * aborted) become transcript entries of the interactive session: custom
 * entries, durable and drawn by their renderer, never sent to the model
 * (spec 1: "background or detached logs append as bounded transcript
 * entries"). Every message is also in the run's events.jsonl, where the
 * trajectory viewer reads it.
 *
 * Bounds: messages of one run are gathered for FLUSH_MS and appended as one
 * entry of at most ENTRY_MESSAGES messages, each escaped and cut to
 * MESSAGE_CHARACTERS; what a window holds beyond that is counted (`more`),
 * not kept. A script that logs in a tight loop so adds at most two entries
 * a second per run, each under 2 KB.
 */
import type { LogObservation } from '../../kernel/index.js';
import { logLine } from '../../lib/log-line.js';
import { printable } from '../../lib/terminal-text.js';

export const LOG_ENTRY = 'workflow-log';
export const ENTRY_MESSAGES = 5;
export const MESSAGE_CHARACTERS = 300;
const FLUSH_MS = 500;

export interface LogEntry {
  readonly runId: string;
  /** The workflow's name, when its run could be read. */
  readonly workflow?: string;
  readonly messages: readonly string[];
  /** Messages of the same window left out of this entry. */
  readonly more: number;
}

interface Window {
  readonly messages: string[];
  more: number;
}

export class LogEntries {
  readonly #windows = new Map<string, Window>();
  readonly #append: (entry: LogEntry) => void;
  readonly #name: (runId: string) => string | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(append: (entry: LogEntry) => void, name: (runId: string) => string | undefined) {
    this.#append = append;
    this.#name = name;
  }

  add(entry: LogObservation): void {
    const window = this.#windows.get(entry.run.runId) ?? { messages: [], more: 0 };
    this.#windows.set(entry.run.runId, window);
    if (window.messages.length < ENTRY_MESSAGES) window.messages.push(logLine(entry.message, MESSAGE_CHARACTERS));
    else window.more += 1;
    this.#timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Appends one entry per run with messages waiting. */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const windows = [...this.#windows];
    this.#windows.clear();
    for (const [runId, window] of windows) {
      const workflow = this.#name(runId);
      this.#append({ runId, ...(workflow === undefined ? {} : { workflow }), messages: window.messages, more: window.more });
    }
  }

  /** The session ends: what waits is dropped (it is in the run's events). */
  dispose(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#windows.clear();
  }
}

/**
 * The entry as text lines. The data comes from the session file, which
 * anything running as the user can edit: escaped and bounded again here.
 */
export function logEntryLines(entry: LogEntry): string[] {
  const messages = Array.isArray(entry.messages) ? entry.messages.slice(0, ENTRY_MESSAGES) : [];
  const name = typeof entry.workflow === 'string' ? `${logLine(entry.workflow, 80)} ` : '';
  const more = typeof entry.more === 'number' && entry.more > 0 ? [`  +${entry.more} more (the trajectory viewer has every message)`] : [];
  return [`Workflow ${name}(${printable(String(entry.runId)).slice(0, 40)}) log:`, ...messages.map((message) => `  ${logLine(String(message), MESSAGE_CHARACTERS)}`), ...more];
}
