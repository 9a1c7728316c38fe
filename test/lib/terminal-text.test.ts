/** lib/terminal-text.ts: what reaches a terminal from a value is text, never a control. */
import { describe, expect, it } from 'vitest';
import { printable, printableLines } from '../../lib/terminal-text.js';

describe('printable', () => {
  it('escapes ESC, BEL, CR, LF, tab, NUL, DEL and the other C0 controls', () => {
    expect(printable('a\x1b[31mred\x07\r\nb\tc\0d\x7f')).toBe('a\\x1b[31mred\\x07\\r\\nb\\tc\\x00d\\x7f');
    for (let code = 0; code < 0x20; code += 1) expect(printable(String.fromCharCode(code))).toMatch(/^\\[nrt]$|^\\x[01][0-9a-f]$/);
  });

  it('escapes C1 controls (U+009B is a one-byte CSI) and bidirectional controls', () => {
    expect(printable('\u009b2J\u0085')).toBe('\\x9b2J\\x85');
    expect(printable('abc\u202edcba\u2066x\u2069\u200f\u061c\u2028')).toBe('abc\\u202edcba\\u2066x\\u2069\\u200f\\u061c\\u2028');
  });

  it('leaves printable text alone: Unicode, emoji, backslashes, combining marks', () => {
    const text = 'héllo · 世界 😀 C:\\dir\\x1b e\u0301';
    expect(printable(text)).toBe(text);
  });
});

describe('printableLines', () => {
  it('keeps line feeds and tabs, reads CRLF as a line feed, escapes every other control', () => {
    expect(printableLines('one\r\ntwo\n\tthree\rfour\x1b]0;title\x07')).toBe('one\ntwo\n\tthree\\rfour\\x1b]0;title\\x07');
    expect(printableLines('\u2028\u202e\u009b')).toBe('\\u2028\\u202e\\x9b');
  });
});
