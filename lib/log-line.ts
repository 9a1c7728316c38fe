/**
 * A script's `log(message)` shown to a person (the `wfcli` progress, the live
 * tool item in Pi, a background run's transcript entry). The message is
 * script-chosen text of up to 4 KB: every control character is escaped so it
 * cannot move a cursor, clear a screen or fake a row, and the result is cut
 * to `max` characters (code points, so an emoji is never split) with an
 * ellipsis, so one message is always one bounded line.
 */
import { printable } from './terminal-text.js';

export function logLine(message: string, max: number): string {
  const shown = printable(message);
  if (shown.length <= max) return shown;
  const characters = Array.from(shown);
  return characters.length <= max ? shown : `${characters.slice(0, Math.max(0, max - 1)).join('')}…`;
}
