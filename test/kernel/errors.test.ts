import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RESULT_CODES, RUNTIME_ERROR_CODES, WORKFLOW_ERROR_CODES, WorkflowError, isWorkflowError, isWorkflowErrorCode } from '../../kernel/errors.js';

function specCodes(file: string, section: string): string[] {
  const text = readFileSync(new URL(`../../../shared/spec/${file}`, import.meta.url), 'utf8');
  const body = text.split(`## ${section}`)[1]?.split('\n## ')[0] ?? '';
  return [...body.matchAll(/^\| ([A-Z][A-Z_]+)(?:, ([A-Z][A-Z_]+))*(?:, ([A-Z][A-Z_]+))*(?:, ([A-Z][A-Z_]+))* \|/gm)].flatMap((match) =>
    match.slice(1).filter((code): code is string => code !== undefined),
  );
}

describe('WorkflowError', () => {
  it('defines every stable code of spec 1 and spec 2 exactly once', () => {
    const fromSpec = new Set([...specCodes('1-runtime.md', 'Errors'), ...specCodes('2-extensions.md', 'Errors')]);
    fromSpec.delete('NOT_FOUND'); // a result object code, never thrown
    fromSpec.add('RUN_NOT_FOUND'); // named under Endpoints (workflow_status)
    expect(fromSpec.size).toBeGreaterThan(20);
    // Codes of this runtime come on top, each documented in docs/errors.md.
    const errorsDoc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    for (const code of RUNTIME_ERROR_CODES) {
      expect(fromSpec.has(code)).toBe(false);
      expect(errorsDoc).toContain(`| ${code} |`);
      fromSpec.add(code);
    }
    expect(new Set(WORKFLOW_ERROR_CODES)).toEqual(fromSpec);
    expect(new Set(WORKFLOW_ERROR_CODES).size).toBe(WORKFLOW_ERROR_CODES.length);
    expect(RESULT_CODES.NOT_FOUND).toBe('NOT_FOUND');
  });

  it('has the documented shape and survives JSON', () => {
    const error = new WorkflowError('CONFIG_ERROR', 'bad settings', { path: '/x/settings.json' });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('WorkflowError');
    expect(JSON.parse(JSON.stringify(error))).toEqual({ code: 'CONFIG_ERROR', message: 'bad settings', details: { path: '/x/settings.json' } });
    expect(new WorkflowError('CANCELLED', 'stop').toJSON()).toEqual({ code: 'CANCELLED', message: 'stop' });
    const back = WorkflowError.fromJSON(error.toJSON());
    expect(back).toBeInstanceOf(WorkflowError);
    expect(back.details).toEqual({ path: '/x/settings.json' });
  });

  it('recognizes errors from another bundled copy by shape', () => {
    const foreign = Object.assign(new Error('x'), { name: 'WorkflowError', code: 'SHELL_FAILED' });
    expect(isWorkflowError(foreign)).toBe(true);
    expect(isWorkflowError(Object.assign(new Error('x'), { name: 'WorkflowError', code: 'NOPE' }))).toBe(false);
    expect(isWorkflowError(new Error('plain'))).toBe(false);
    expect(isWorkflowErrorCode('BUDGET_EXHAUSTED')).toBe(true);
    expect(isWorkflowErrorCode('NOT_FOUND')).toBe(false);
  });
});
