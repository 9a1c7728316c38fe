/**
 * `withWorktree(name, callback)`: a scope primitive. Before the callback
 * runs, the scope is bound to a worktree (binding.ts): the binding this run
 * already has for the scope (a second entry, a retry child), a parent's
 * worktree of the same name (a launch with `parentRunId`), or a new one. Everything inside
 * the scope runs in the worktree (`scopeCwd`); the script gets a frozen
 * `{ name, path, branch }`. The journal replays a completed call with its
 * reference once the worktree is checked to be still there on its branch.
 */
import { WorkflowError, compileOnFirstUse, type JsonValue, type PrimitiveDefinition } from '../../kernel/index.js';
import type { Binder } from './binding.js';
import { checkName, scopePathOf } from './names.js';
import { checkWorktree } from './worktree.js';

export interface WorktreeReference {
  readonly name: string;
  readonly path: string;
  readonly branch: string;
}

const isReference = compileOnFirstUse<WorktreeReference>({
  type: 'object',
  additionalProperties: false,
  required: ['name', 'path', 'branch'],
  properties: { name: { type: 'string' }, path: { type: 'string' }, branch: { type: 'string' } },
});

export function createWorktreePrimitive(bind: Binder): PrimitiveDefinition {
  return {
    name: 'withWorktree',
    kind: 'scope',
    async run(call, context) {
      const name = checkName(call.args);
      const { path, branch } = await bind({ cwd: call.cwd, access: context.access, name, scopePath: scopePathOf(call.scope, name), borrow: true });
      return Object.freeze({ name, path, branch });
    },
    replay(value: JsonValue) {
      if (!isReference(value)) throw new WorkflowError('WORKTREE_FAILED', 'The journaled withWorktree reference is not { name, path, branch }');
      checkWorktree(value);
    },
    scopeCwd: (value) => (isReference(value) ? value.path : undefined),
  };
}
