/**
 * Text for a terminal. Names, labels, messages and paths come from scripts,
 * models, shells and run directories, so any of them may hold characters
 * that act on a terminal instead of showing: ESC (colour, cursor moves,
 * title and clipboard sequences), BEL, CR (overwrites the line), newlines (a
 * fake row), other C0 and C1 controls (U+009B is a one-byte CSI), DEL, and
 * the bidirectional controls that reorder what is shown. Every human-readable
 * output escapes them where it prints a value; stored data and JSON output
 * stay exact.
 *
 * An escaped character reads as in JavaScript: `\n`, `\r`, `\t`, `\x1b`,
 * `\u202e`. Backslashes are left as they are (a path keeps its look).
 */

/** C0 controls, DEL, C1 controls, line and paragraph separators, bidirectional marks, embeddings, overrides and isolates. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
/** The same, but line feeds and tabs stay: text meant to span lines. */
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escape(character: string): string {
  const named = NAMED[character];
  if (named !== undefined) return named;
  const code = character.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** A value shown on one line: every control character escaped, newlines included. */
export function printable(value: string): string {
  return value.replace(CONTROLS, escape);
}

/** A value that may span lines (a message, a document): line feeds and tabs kept, CRLF read as a line feed, every other control escaped. */
export function printableLines(value: string): string {
  return value.replace(/\r\n/g, '\n').replace(CONTROLS_BUT_LINES, escape);
}
