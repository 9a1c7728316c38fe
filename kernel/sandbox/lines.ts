/**
 * Newline-framed messages over a byte stream (the sandbox process's pipes).
 * Every message is one `JSON.stringify` text, which never contains a raw
 * newline. A line longer than `maxLine` is a protocol violation, reported
 * once, before its bytes pile up in memory.
 */
import { StringDecoder } from 'node:string_decoder';

export class LineReader {
  readonly #decoder = new StringDecoder('utf8');
  readonly #maxLine: number;
  readonly #onLine: (line: string) => void;
  readonly #onOverflow: () => void;
  #partial: string[] = [];
  #partialLength = 0;
  #broken = false;

  constructor(maxLine: number, onLine: (line: string) => void, onOverflow: () => void) {
    this.#maxLine = maxLine;
    this.#onLine = onLine;
    this.#onOverflow = onOverflow;
  }

  push(chunk: Buffer | string): void {
    if (this.#broken) return;
    const text = typeof chunk === 'string' ? chunk : this.#decoder.write(chunk);
    let start = 0;
    for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', start)) {
      let line = text.slice(start, newline);
      start = newline + 1;
      if (this.#partial.length > 0) {
        this.#partial.push(line);
        line = this.#partial.join('');
        this.#partial = [];
        this.#partialLength = 0;
      }
      if (line.length > this.#maxLine) return this.#overflow();
      if (line !== '') this.#onLine(line);
      if (this.#broken) return;
    }
    if (start < text.length) {
      const rest = text.slice(start);
      this.#partial.push(rest);
      this.#partialLength += rest.length;
      if (this.#partialLength > this.#maxLine) this.#overflow();
    }
  }

  #overflow(): void {
    this.#broken = true;
    this.#partial = [];
    this.#onOverflow();
  }
}
