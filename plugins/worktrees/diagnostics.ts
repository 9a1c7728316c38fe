/**
 * The run's named worktrees, each checked (spec 1 `workflow_retry`: failure
 * diagnostics expose validated named worktrees). For hosts that report on a
 * stored snapshot's `plugins.worktrees`.
 */
import { isWorkflowError, type JsonValue } from '../../kernel/index.js';
import { parseState } from './state.js';
import { checkWorktree } from './worktree.js';

export interface WorktreeDiagnostic {
  /** The scope path bound to the worktree. */
  readonly owner: string;
  readonly name: string;
  readonly path: string;
  readonly branch: string;
  readonly borrowedFrom?: string;
  /** The worktree is still there on its branch, so a retry or resume can reuse it. */
  readonly valid: boolean;
  readonly problem?: string;
}

export function validatedWorktrees(pluginState: JsonValue | undefined): WorktreeDiagnostic[] {
  return Object.entries(parseState(pluginState).scopes).map(([owner, binding]) => {
    const entry = { owner, name: binding.name, path: binding.path, branch: binding.branch, ...(binding.borrowedFrom === undefined ? {} : { borrowedFrom: binding.borrowedFrom }) };
    try {
      checkWorktree(binding);
      return { ...entry, valid: true };
    } catch (error) {
      if (!isWorkflowError(error)) throw error;
      return { ...entry, valid: false, problem: error.message };
    }
  });
}
