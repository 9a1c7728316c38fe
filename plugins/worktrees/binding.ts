/**
 * Binding a scope to its worktree, for `withWorktree` and for agents with
 * `isolation: "worktree"` alike: the binding this run already has for the
 * scope (a second entry, a resumed or retried call), else a parent's
 * worktree lent through `parentRunId` when the caller may borrow, else a new
 * one, persisted in the run's state before anything runs there and announced
 * once.
 */
import { WORKFLOW_WORKTREE_CREATED_EVENT, type RunAccess } from '../../kernel/index.js';
import { PLUGIN_NAME, bindScope, lentBinding, parseState, type WorktreeBinding } from './state.js';
import { checkWorktree, createWorktree } from './worktree.js';

export interface BindRequest {
  /** The cwd in effect where the scope opens: the run's, or an enclosing worktree's. */
  readonly cwd: string;
  readonly access: RunAccess;
  readonly name: string;
  readonly scopePath: string;
  /** Whether a worktree the parent run lends (`parentRunId`) may serve this scope. */
  readonly borrow: boolean;
}

export type Binder = (request: BindRequest) => Promise<WorktreeBinding>;

async function bind(request: BindRequest): Promise<WorktreeBinding> {
  const { access, name, scopePath } = request;
  const state = parseState(access.pluginState(PLUGIN_NAME));
  const own = state.scopes[scopePath];
  if (own !== undefined) {
    checkWorktree(own);
    return own;
  }
  const lent = request.borrow ? lentBinding(state, scopePath, name) : undefined;
  if (lent !== undefined && state.parent !== undefined) {
    checkWorktree(lent);
    const borrowed: WorktreeBinding = { ...lent, borrowedFrom: lent.borrowedFrom ?? state.parent.runId };
    bindScope(access, scopePath, borrowed);
    return borrowed;
  }
  const created = await createWorktree({ cwd: request.cwd, runId: access.run.runId, runDir: access.runDir, name, scopePath });
  try {
    bindScope(access, scopePath, created.binding);
  } catch (error) {
    await created.discard();
    throw error;
  }
  const { branch, path } = created.binding;
  access.recordEvent({ type: 'worktree-created', owner: scopePath, branch, path }, { type: WORKFLOW_WORKTREE_CREATED_EVENT, owner: scopePath, branch, path });
  return created.binding;
}

/** One binding in flight per run and scope, so concurrent entries of a scope share it. */
export function createBinder(): Binder {
  const pending = new Map<string, Promise<WorktreeBinding>>();
  return (request) => {
    const key = `${request.access.run.runId}\n${request.scopePath}`;
    let binding = pending.get(key);
    if (binding === undefined) {
      binding = bind(request).finally(() => pending.delete(key));
      pending.set(key, binding);
    }
    return binding;
  };
}
