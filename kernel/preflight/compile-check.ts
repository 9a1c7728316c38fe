/**
 * Rollup's parser skips most strict-mode early errors (duplicate parameters,
 * `delete x`, legacy octals, redeclarations, `using`), which the sandbox's
 * engine would only report when the run starts. Compiling the program here,
 * without running it, reports them before launch.
 */
import { Script } from 'node:vm';

const FILENAME = 'workflow-preflight.js';
const STRICT = "'use strict';";

export interface CompileFailure {
  /** 1-based line in the program. */
  readonly line: number;
  /** 0-based column in that line of the program, when the engine showed it. */
  readonly column: number;
  readonly message: string;
}

export function compileFailure(program: string): CompileFailure | undefined {
  try {
    new Script(STRICT + program, { filename: FILENAME });
    return undefined;
  } catch (error) {
    // V8's parser out of stack is no syntax error at line 1: preflight() reports it as too deep a nesting.
    if (error instanceof RangeError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const stack = error instanceof Error ? (error.stack ?? '') : '';
    // The engine decorates the stack with "file:line", the source line and a line of
    // spaces up to the error with carets under it (no carets for an empty range).
    const lines = stack.split('\n');
    const header = lines.findIndex((text) => text.startsWith(`${FILENAME}:`));
    const line = header < 0 ? 1 : Number(lines[header]?.slice(FILENAME.length + 1)) || 1;
    const marker = header < 0 ? '' : (lines[header + 2] ?? '');
    const caret = marker.includes('^') ? marker.indexOf('^') : marker.length;
    const column = Math.max(0, caret - (line === 1 ? STRICT.length : 0));
    return { line, column, message };
  }
}
