/**
 * Which worktree an agent works in: the innermost scope of its structural
 * path that the worktrees plugin bound (`plugins.worktrees.scopes`, keyed by
 * the scope path joined with `/`), as the kernel gives agents their
 * `worktreeOwner`.
 */
import { compileOnFirstUse, type AgentSummary, type StatusSummary } from '../../../kernel/index.js';

export interface AgentWorktree {
  readonly owner: string;
  readonly path: string;
  readonly branch: string;
}

interface WorktreesView {
  readonly scopes: Readonly<Record<string, { readonly path: string; readonly branch: string }>>;
}

const text = { type: 'string', minLength: 1 } as const;
const validate = compileOnFirstUse<WorktreesView>({
  type: 'object',
  required: ['scopes'],
  properties: { scopes: { type: 'object', additionalProperties: { type: 'object', required: ['path', 'branch'], properties: { path: text, branch: text } } } },
});

export function agentWorktree(run: StatusSummary, agent: AgentSummary): AgentWorktree | undefined {
  const state = run.plugins['worktrees'];
  if (!validate(state)) return undefined;
  for (let end = agent.path.length; end > 0; end -= 1) {
    const owner = agent.path.slice(0, end).join('/');
    const binding = Object.hasOwn(state.scopes, owner) ? state.scopes[owner] : undefined;
    if (binding) return { owner, path: binding.path, branch: binding.branch };
  }
  return undefined;
}
