/**
 * Position-based text edits on the original source, so the rewritten program
 * keeps every untouched character (and every line) where it was.
 */

export interface Edit {
  /** Offset in the original text. */
  readonly at: number;
  /** How many original characters the edit replaces (0 inserts). */
  readonly remove: number;
  readonly text: string;
}

/** Edits in application order: by offset, keeping the given order for ties. */
function ordered(edits: readonly Edit[]): Edit[] {
  return edits.map((edit, index) => ({ edit, index })).sort((a, b) => a.edit.at - b.edit.at || a.index - b.index).map(({ edit }) => edit);
}

export function applyEdits(text: string, edits: readonly Edit[]): string {
  let result = '';
  let cursor = 0;
  for (const edit of ordered(edits)) {
    if (edit.at < cursor) throw new Error(`overlapping preflight edits at offset ${edit.at}`);
    result += text.slice(cursor, edit.at) + edit.text;
    cursor = edit.at + edit.remove;
  }
  return result + text.slice(cursor);
}

/** The original offset of an offset in the edited text (an inserted character maps to where it was inserted). */
export function originalOffset(edits: readonly Edit[], offset: number): number {
  let delta = 0;
  for (const edit of ordered(edits)) {
    const editedStart = edit.at + delta;
    if (offset < editedStart) break;
    if (offset < editedStart + edit.text.length) return edit.at;
    delta += edit.text.length - edit.remove;
  }
  return offset - delta;
}
