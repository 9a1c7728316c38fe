/**
 * `agent(prompt, { isolation: "worktree" })`, as Claude Code's dynamic
 * workflows and other runtimes write it: the agent runs in a fresh git
 * worktree of its own, where `withWorktree(name, () => agent(...))` would run
 * it. Its place is the scope `withWorktree:<name>` inside the call's scope,
 * bound as withWorktree binds one (binding.ts) before the agent is prepared:
 * the binding is persisted first, so a resumed or retried call finds its
 * worktree again instead of making a second, and a completed call replays
 * from the journal without being placed at all.
 *
 * The name follows from the call's identity, so every segment computes the
 * same one: `agent-<line>-<column>-<occurrence>` for one call, and
 * `handle-<name>` for every turn of a handle. Unlike a named withWorktree
 * scope, it never borrows a parent run's worktree (`parentRunId`): the
 * caller asked for a fresh one.
 */
import { createHash } from 'node:crypto';
import { WorkflowError, type AgentPlaceInput, type AgentPlacement, type LaunchInput } from '../../kernel/index.js';
import type { Binder } from './binding.js';
import { scopePathOf, scopeSegment } from './names.js';

/** The agent option this plugin reads. */
export const ISOLATION_OPTION = 'isolation';
const WORKTREE = 'worktree';

/** Characters a worktree name cannot hold (names.ts). */
const UNSAFE = /[^A-Za-z0-9_-]+/g;
const MAX_HANDLE_PART = 40;

/**
 * Whether the options ask for a worktree of the agent's own. Any other
 * value is INVALID_METADATA naming the one accepted form: a silently ignored
 * isolation would let the agent edit the caller's checkout.
 */
export function isolates(options: Readonly<Record<string, unknown>>, sites?: readonly string[]): boolean {
  const value = Object.hasOwn(options, ISOLATION_OPTION) ? options[ISOLATION_OPTION] : undefined;
  if (value === undefined) return false;
  if (value === WORKTREE) return true;
  const where = sites === undefined || sites.length === 0 ? '' : ` (at ${sites.join(', ')})`;
  const given = (JSON.stringify(value) ?? String(value)).slice(0, 100);
  throw new WorkflowError(
    'INVALID_METADATA',
    `Agent option "isolation"${where} is ${given}; the one isolation this runtime knows is isolation: "worktree" (the agent works in a fresh git worktree of its own); leave the option out to work in the run's directory`,
    { option: ISOLATION_OPTION },
  );
}

/** The worktree name of a call: `agent-3-9-0` for the first call at line 3, column 9; `handle-<name>` for a handle's turns. */
export function isolationName(call: AgentPlaceInput['call']): string {
  if (call.handle === undefined) return `agent-${call.site.replace(UNSAFE, '-')}-${call.occurrence}`;
  const safe = call.handle.replace(UNSAFE, '-');
  if (safe === call.handle && safe.length <= MAX_HANDLE_PART) return `handle-${safe}`;
  // A handle name that had to change keeps a digest of the original, so two handles never share a worktree.
  return `handle-${safe.slice(0, MAX_HANDLE_PART)}-${createHash('sha256').update(call.handle).digest('hex').slice(0, 8)}`;
}

/** The `preparation.place` tap: an isolated call moves into its worktree scope. */
export function placeIsolated(bind: Binder): (placement: AgentPlacement, input: AgentPlaceInput) => Promise<AgentPlacement> {
  return async (placement, input) => {
    if (!isolates(input.options)) return placement;
    const name = isolationName(input.call);
    const scopePath = scopePathOf(placement.path, name);
    // From the directory the call would have worked in: inside withWorktree, a worktree of that worktree.
    const binding = await bind({ cwd: placement.cwd, access: input.access, name, scopePath, borrow: false });
    return { path: [...placement.path, scopeSegment(name)], cwd: binding.path, owner: scopePath };
  };
}

/** The `preparation.launch` tap: a literal isolation other than "worktree" refuses the launch, naming the calls. */
export function checkLaunchIsolation(input: LaunchInput): void {
  for (const { options, sites } of input.staticAgentCalls ?? []) isolates(options, sites);
  // Those of the registered functions the script calls (their sites are in the functions' sources).
  for (const options of input.staticAgentOptions) isolates(options);
}
