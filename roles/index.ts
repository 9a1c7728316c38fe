/**
 * The roles package (spec 1 "What the service does"): role files, their
 * discovery and precedence, and the `role` agent option. Its entry
 * (dist/roles/index.js) contributes the roles plugin; without it core gives
 * `role` no meaning and an agent call's `role` is an ignored extension key.
 *
 * The plugin taps `preparation.prepare` at stage -50: after the selectors
 * plugin's settings layers (-100), before registered extension preparation
 * hooks (0), the call's own selectors (50) and alias resolution (100), so a
 * role's model may be an alias. Roles are discovered once per segment (a
 * launch, resume, retry or launch inspection) and only when a call names a
 * role; a frozen agent configuration is never prepared again, so a resumed
 * agent keeps what its role gave it.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { WorkflowError, workflowPluginEntry, type AgentPreparation, type KernelPlugin, type KernelPreparationContext } from '../kernel/index.js';
import { applyRole } from './apply.js';
import { freezeRoleContributions, resetRoleContributions, roleContributions, type RoleContribution } from './contributions.js';
import { discoverRoles, globalRolesDir, projectRolesDir, type RoleSet } from './discovery.js';
import { ROLE_NAME_PATTERN } from './role-file.js';

export const PLUGIN_NAME = 'roles';
/** The `preparation.prepare` stage of the role layer. */
export const ROLE_STAGE = -50;
/** The agent option this package owns. */
export const ROLE_OPTION = 'role';
/** The plugin that moves the call's selectors aside until after generic preparation. */
const SELECTORS_PLUGIN = 'selectors';

export interface RolesPluginOptions {
  /** Where contributed role directories come from; default the process-wide contributions. */
  readonly contributions?: () => readonly RoleContribution[];
  /** Expands `~` in role extension selectors; default the user's home. */
  readonly home?: string;
}

export function createRolesPlugin(options: RolesPluginOptions = {}): KernelPlugin {
  const contributions = options.contributions ?? roleContributions;
  const home = options.home ?? homedir();
  return {
    name: PLUGIN_NAME,
    provides: { agentOptions: [ROLE_OPTION] },
    apply(kernel) {
      const callSelectorsAside = kernel.plugins.includes(SELECTORS_PLUGIN);
      // The contributions follow the workflow registry: frozen at session start, emptied at shutdown.
      kernel.hooks.registry.frozen.tap(PLUGIN_NAME, () => freezeRoleContributions());
      kernel.hooks.registry.reset.tap(PLUGIN_NAME, () => resetRoleContributions());

      /** Per segment token and trust: one discovery, shared by the segment's calls. */
      const sets = new WeakMap<object, Map<string, Promise<RoleSet>>>();
      const roleSet = (context: KernelPreparationContext): Promise<RoleSet> => {
        let bySegment = sets.get(context.segment);
        if (bySegment === undefined) sets.set(context.segment, (bySegment = new Map()));
        // A child whose parent was denied trust sees no project roles.
        const key = `${context.projectTrusted}:${context.projectCwd}`;
        let set = bySegment.get(key);
        if (set === undefined) {
          set = discoverRoles({ contributions: contributions(), agentDir: context.agentDir, projectCwd: context.projectCwd, projectTrusted: context.projectTrusted, home });
          bySegment.set(key, set);
        }
        return set;
      };

      kernel.hooks.preparation.prepare.tapPromise({ name: PLUGIN_NAME, stage: ROLE_STAGE }, async (preparation: AgentPreparation, context: KernelPreparationContext) => {
        const requested = context.options[ROLE_OPTION];
        if (requested === undefined) return preparation;
        if (typeof requested !== 'string' || !ROLE_NAME_PATTERN.test(requested)) {
          throw new WorkflowError('INVALID_METADATA', `agent option "role" must be a role name matching ${ROLE_NAME_PATTERN.source}`, { option: ROLE_OPTION });
        }
        if (context.signal.aborted) throw new WorkflowError('CANCELLED', 'agent preparation was cancelled');
        const roles = await roleSet(context);
        if (context.signal.aborted) throw new WorkflowError('CANCELLED', 'agent preparation was cancelled');
        const role = roles.get(requested);
        if (role === undefined) {
          const define = `define it in ${join(globalRolesDir(context.agentDir), `${requested}.md`)} (or in the trusted project's ${join(projectRolesDir(context.projectCwd), `${requested}.md`)}): Markdown with YAML front matter (description, model, tools ...) and the role's guidance as its body, see docs/roles.md`;
          throw new WorkflowError('INVALID_METADATA', `Unknown role "${requested}"; the roles are ${[...roles.keys()].sort().join(', ')}. To use "${requested}", ${define}`, { option: ROLE_OPTION, role: requested });
        }
        return applyRole(preparation, role.definition, context, { callSelectorsAside });
      });
    },
  };
}

export const rolesPlugin = createRolesPlugin();

/** The roles entry (dist/roles/index.js): contributes the roles plugin to the host. */
export default workflowPluginEntry(rolesPlugin);

export { applyRole, type ApplyRoleOptions } from './apply.js';
export {
  ROLE_CONTRIBUTIONS_FORMAT,
  freezeRoleContributions,
  registerRoleContribution,
  resetRoleContributions,
  roleContributions,
  roleContributionsState,
  type RoleContribution,
  type RoleContributionInput,
  type RoleContributionsState,
} from './contributions.js';
export { ROLES_DIR_NAME, discoverRoles, globalRolesDir, projectRolesDir, type DiscoveredRole, type RoleDiscoveryInput, type RoleProblem, type RoleSet, type RoleSource, type RoleSourceKind } from './discovery.js';
export { FALLBACK_ROLES } from './fallback.js';
export { ROLE_FILE_EXTENSION, ROLE_FRONT_MATTER_SCHEMA, ROLE_NAME_PATTERN, parseRoleFile, roleNameOf, type RoleDefinition } from './role-file.js';
