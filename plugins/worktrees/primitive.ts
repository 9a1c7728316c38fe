/**
 * `withWorktree(name, callback)`: a scope primitive. Before the callback
 * runs, the scope is bound to a worktree: the binding this run already has
 * for the scope (a second entry, a retry child), a parent's worktree of the
 * same name (a launch with `parentRunId`), or a new one. Everything inside
 * the scope runs in the worktree (`scopeCwd`); the script gets a frozen
 * `{ name, path, branch }`. The journal replays a completed call with its
 * reference once the worktree is checked to be still there on its branch.
 */
import { WORKFLOW_WORKTREE_CREATED_EVENT, WorkflowError, compileOnFirstUse, type JsonValue, type PrimitiveCall, type PrimitiveContext, type PrimitiveDefinition } from '../../kernel/index.js';
import { checkName, scopePathOf } from './names.js';
import { PLUGIN_NAME, bindScope, lentBinding, parseState, type WorktreeBinding } from './state.js';
import { checkWorktree, createWorktree } from './worktree.js';

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

async function bind(call: PrimitiveCall, context: PrimitiveContext, name: string, scopePath: string): Promise<WorktreeBinding> {
  const state = parseState(context.access.pluginState(PLUGIN_NAME));
  const own = state.scopes[scopePath];
  if (own !== undefined) {
    checkWorktree(own);
    return own;
  }
  const lent = lentBinding(state, scopePath, name);
  if (lent !== undefined && state.parent !== undefined) {
    checkWorktree(lent);
    const borrowed: WorktreeBinding = { ...lent, borrowedFrom: lent.borrowedFrom ?? state.parent.runId };
    bindScope(context.access, scopePath, borrowed);
    return borrowed;
  }
  const created = await createWorktree({ cwd: call.cwd, runId: context.run.runId, runDir: context.run.runDir, name, scopePath });
  try {
    bindScope(context.access, scopePath, created.binding);
  } catch (error) {
    await created.discard();
    throw error;
  }
  const { branch, path } = created.binding;
  context.access.recordEvent({ type: 'worktree-created', owner: scopePath, branch, path }, { type: WORKFLOW_WORKTREE_CREATED_EVENT, owner: scopePath, branch, path });
  return created.binding;
}

export function createWorktreePrimitive(): PrimitiveDefinition {
  // One binding in flight per run and scope, so concurrent entries share it.
  const pending = new Map<string, Promise<WorktreeBinding>>();
  return {
    name: 'withWorktree',
    kind: 'scope',
    async run(call, context) {
      const name = checkName(call.args);
      const scopePath = scopePathOf(call.scope, name);
      const key = `${context.run.runId}\n${scopePath}`;
      let binding = pending.get(key);
      if (binding === undefined) {
        binding = bind(call, context, name, scopePath).finally(() => pending.delete(key));
        pending.set(key, binding);
      }
      const { path, branch } = await binding;
      return Object.freeze({ name, path, branch });
    },
    replay(value: JsonValue) {
      if (!isReference(value)) throw new WorkflowError('WORKTREE_FAILED', 'The journaled withWorktree reference is not { name, path, branch }');
      checkWorktree(value);
    },
    scopeCwd: (value) => (isReference(value) ? value.path : undefined),
  };
}
