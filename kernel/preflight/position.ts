/** Offsets to 1-based lines and columns (UTF-16 units, JavaScript line terminators). */
export interface Position {
  readonly line: number;
  readonly column: number;
}

const LINE_BREAK = /\r\n?|[\n\u2028\u2029]/g;

export class LineIndex {
  readonly text: string;
  readonly #starts: number[] = [0];

  constructor(text: string) {
    this.text = text;
    for (const match of text.matchAll(LINE_BREAK)) this.#starts.push(match.index + match[0].length);
  }

  position(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.#starts[middle] as number) <= clamped) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: clamped - (this.#starts[low] as number) + 1 };
  }

  offset(position: Position): number {
    const start = this.#starts[Math.max(0, Math.min(position.line - 1, this.#starts.length - 1))] as number;
    return Math.min(start + position.column - 1, this.text.length);
  }
}
