/**
 * The plugin's state in snapshot.json `plugins.worktrees`: one binding per
 * scope path (`withWorktree:<name>` inside its enclosing scopes), and for a
 * launch with `parentRunId` the parent's bindings it may borrow by name.
 * Retry children inherit the whole state with the snapshot's `plugins`.
 */
import { WorkflowError, compileOnFirstUse, formatAjvErrors, type JsonValue, type RunAccess } from '../../kernel/index.js';

export const PLUGIN_NAME = 'worktrees';

export interface WorktreeBinding {
  readonly name: string;
  /** The worktree's directory. */
  readonly path: string;
  readonly branch: string;
  /** The commit the branch started from: the caller's HEAD or a snapshot of its uncommitted changes on top. */
  readonly base: string;
  readonly createdAt: string;
  /** The run that created the worktree, when this run borrowed it through `parentRunId`. */
  readonly borrowedFrom?: string;
}

export interface WorktreesState {
  readonly scopes: Readonly<Record<string, WorktreeBinding>>;
  readonly parent?: { readonly runId: string; readonly scopes: Readonly<Record<string, WorktreeBinding>> };
}

const text = { type: 'string', minLength: 1 } as const;
const binding = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'path', 'branch', 'base', 'createdAt'],
  properties: { name: text, path: text, branch: text, base: text, createdAt: text, borrowedFrom: text },
} as const;
const scopes = { type: 'object', additionalProperties: binding } as const;

const validateState = compileOnFirstUse({
  type: 'object',
  additionalProperties: false,
  required: ['scopes'],
  properties: {
    scopes,
    parent: { type: 'object', additionalProperties: false, required: ['runId', 'scopes'], properties: { runId: text, scopes } },
  },
});

/** The stored state, or an empty one; a corrupt one is refused rather than guessed at. */
export function parseState(value: JsonValue | undefined): WorktreesState {
  if (value === undefined) return { scopes: {} };
  if (!validateState(value)) {
    throw new WorkflowError('WORKTREE_FAILED', `The run's stored worktree bindings are invalid: ${formatAjvErrors(validateState.errors)}`);
  }
  return value as unknown as WorktreesState;
}

/** Records the binding of one scope; persisted atomically before it returns. */
export function bindScope(access: RunAccess, scopePath: string, value: WorktreeBinding): void {
  const state = parseState(access.pluginState(PLUGIN_NAME));
  const next: WorktreesState = { ...state, scopes: { ...state.scopes, [scopePath]: value } };
  access.setPluginState(PLUGIN_NAME, next as unknown as JsonValue);
}

/**
 * The parent's binding this scope borrows: the same scope path first, else
 * the earliest created binding of the same name.
 */
export function lentBinding(state: WorktreesState, scopePath: string, name: string): WorktreeBinding | undefined {
  const lent = state.parent?.scopes;
  if (lent === undefined) return undefined;
  return lent[scopePath] ?? Object.values(lent).filter((entry) => entry.name === name).sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0];
}
