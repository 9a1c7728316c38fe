/** Shared helpers of the preflight suites: one option set and the rejection checks. */
import { expect } from 'vitest';
import { WorkflowError } from '../../kernel/errors.js';
import { preflight } from '../../kernel/preflight/index.js';

export const PREFLIGHT_OPTIONS = {
  primitives: ['agent', 'shell', 'prompt', 'parallel', 'pipeline', 'phase', 'log', 'evidence', 'checkpoint', 'withWorktree', 'tools', 'args', 'budget'],
  functions: ['reviewLoop'],
  effects: ['evidence', 'checkpoint', 'withWorktree'],
};

export function rejection(source: string, options = PREFLIGHT_OPTIONS): WorkflowError {
  try {
    preflight(source, options);
  } catch (error) {
    if (error instanceof WorkflowError) return error;
    throw error;
  }
  throw new Error(`accepted: ${source}`);
}

export function expectRejected(source: string, line: number, column: number, ...mentions: string[]): void {
  const error = rejection(source);
  expect(error.code).toBe('INVALID_SYNTAX');
  // One problem: the message is that problem's, and details.problems holds it alone.
  expect(error.details).toMatchObject({ line, column, count: 1, problems: [{ code: 'INVALID_SYNTAX', line, column }] });
  expect(error.message.startsWith(`Line ${line}, column ${column}: `)).toBe(true);
  for (const mention of mentions) expect(error.message).toContain(mention);
}
