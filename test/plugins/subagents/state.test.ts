/**
 * The plugin state of a standalone run (`plugins.subagents`): the launch
 * option is checked at the boundary, a state of another shape still marks
 * the run but is never overwritten, and the subagent script keeps the prompt
 * out of the source.
 */
import { describe, expect, it } from 'vitest';
import { WorkflowError } from '../../../kernel/index.js';
import { subagentScript } from '../../../plugins/subagents/launch.js';
import { checkRequest, initialState, parseState, writableState } from '../../../plugins/subagents/state.js';
import { thrownBy } from '../../support/engine-harness.js';

describe('subagent state', () => {
  it('checks the launch option: known display fields only, non-empty strings', () => {
    expect(checkRequest({ label: 'scout', role: 'reviewer' })).toEqual({ label: 'scout', role: 'reviewer' });
    expect(thrownBy(() => checkRequest({ label: '' }))).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('/label') });
    expect(thrownBy(() => checkRequest({ prompt: 'x' }))).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('unknown key "prompt"') });
    expect(() => checkRequest('scout')).toThrow(WorkflowError);
  });

  it('a state of another shape still marks the run but is not writable; no state is no subagent', () => {
    const state = initialState({ label: 'a' });
    expect(parseState(state as never)).toEqual(state);
    expect(writableState(state as never)).toEqual(state);
    expect(parseState({ format: 2, other: true })).toEqual(initialState({}));
    expect(writableState({ format: 2, other: true })).toBeUndefined();
    expect(parseState(undefined)).toBeUndefined();
  });

  it('writes one agent call with the options as a JSON literal, in the worktree scope when named', () => {
    expect(subagentScript({ model: 'a/b:low' }, undefined)).toContain('return await agent(args.prompt, {"model":"a/b:low"});');
    expect(subagentScript({}, 'fix')).toContain('return await withWorktree("fix", async () => await agent(args.prompt, {}));');
  });
});
