/**
 * Role directories that extensions contribute with `registerRoleContribution`
 * (spec 2 "Endpoints"). The contributions live in a process-wide registry on
 * globalThis (every bundled copy of this module and every copy Pi's loader
 * evaluates shares it) and follow the workflow registry's lifecycle: loading
 * until session start, frozen after, emptied at shutdown. The roles plugin
 * moves it through that lifecycle from the kernel's registry hooks, so only
 * the active host's session start and shutdown do.
 *
 * A workflow agent's in-process Pi session runs the user's extension
 * factories again while the registry is frozen: the same contribution again
 * (owner, directories, extension) is that reload and changes nothing. Without
 * the roles entry nothing freezes or empties the registry, so an extension
 * reloaded with other directories adds a contribution nobody reads.
 */
import { statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SEMVER_PATTERN, WorkflowError, compileOnFirstUse, formatAjvErrors, messageOf } from '../kernel/index.js';

export interface RoleContributionInput {
  /** The contributing module (`import.meta.url`) or its directory: relative role directories resolve from it. */
  readonly owner: string;
  /** Absolute paths, owner-relative paths or `file:` URLs. */
  readonly roleDirectories: readonly string[];
  readonly extension: { readonly headline: string; readonly version: string };
}

export interface RoleContribution {
  /** The owner as a path. */
  readonly owner: string;
  /** Absolute directories. */
  readonly directories: readonly string[];
  readonly extension: { readonly headline: string; readonly version: string };
}

export type RoleContributionsState = 'loading' | 'frozen';

const INPUT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['owner', 'roleDirectories', 'extension'],
  properties: {
    owner: { type: 'string', minLength: 1 },
    roleDirectories: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    extension: {
      type: 'object',
      additionalProperties: false,
      required: ['headline', 'version'],
      properties: { headline: { type: 'string', minLength: 1, pattern: '\\S' }, version: { type: 'string', pattern: SEMVER_PATTERN } },
    },
  },
} as const;
const validateInput = compileOnFirstUse<RoleContributionInput>(INPUT_SCHEMA);

const SLOT = Symbol.for('pi-extensible-workflows.roles');
/** Bump when the slot's shape changes incompatibly. */
export const ROLE_CONTRIBUTIONS_FORMAT = 1;

interface Slot {
  readonly format: number;
  state: RoleContributionsState;
  contributions: Map<string, RoleContribution>;
}

function slot(): Slot {
  const existing: unknown = Reflect.get(globalThis, SLOT);
  if (existing === undefined) {
    const created: Slot = { format: ROLE_CONTRIBUTIONS_FORMAT, state: 'loading', contributions: new Map() };
    Object.defineProperty(globalThis, SLOT, { value: created, configurable: true, enumerable: false });
    return created;
  }
  const format: unknown = typeof existing === 'object' && existing !== null ? Reflect.get(existing, 'format') : undefined;
  if (format !== ROLE_CONTRIBUTIONS_FORMAT) {
    throw new WorkflowError('INTERNAL_ERROR', `Another loaded copy of pi-extensible-workflows keeps role contributions in format ${String(format)}, this copy uses ${ROLE_CONTRIBUTIONS_FORMAT}; load one version of the package`);
  }
  return existing as Slot;
}

function toPath(location: string, what: string): string {
  if (location.startsWith('file:')) {
    try {
      return fileURLToPath(location);
    } catch (error) {
      throw new WorkflowError('INVALID_METADATA', `${what} "${location}" is not a valid file URL: ${messageOf(error)}`);
    }
  }
  return location;
}

/** The directory owner-relative role directories resolve from: the owner itself when it is a directory, else its parent. */
function ownerBase(owner: string): string {
  try {
    return statSync(owner).isDirectory() ? owner : dirname(owner);
  } catch {
    return dirname(owner);
  }
}

function normalize(input: RoleContributionInput): RoleContribution {
  const ownerPath = toPath(input.owner, 'Role contribution owner');
  if (!isAbsolute(ownerPath)) {
    throw new WorkflowError('INVALID_METADATA', `Role contribution of "${input.extension.headline}": the owner "${input.owner}" must be an absolute path or a file: URL (normally import.meta.url)`);
  }
  const owner = resolve(ownerPath);
  const base = ownerBase(owner);
  const directories = input.roleDirectories.map((directory) => resolve(base, toPath(directory, 'Role directory')));
  return Object.freeze({
    owner,
    directories: Object.freeze([...new Set(directories)]),
    extension: Object.freeze({ headline: input.extension.headline, version: input.extension.version }),
  });
}

/**
 * Contributes role directories (spec 2 `registerRoleContribution`). Call it
 * inside the extension's default factory with the API the factory received.
 * @throws INVALID_METADATA for a malformed contribution, REGISTRY_FROZEN after session start
 */
export function registerRoleContribution(pi: unknown, input: RoleContributionInput): void {
  if (typeof pi !== 'object' || pi === null) {
    throw new WorkflowError('INVALID_METADATA', 'registerRoleContribution takes the extension API (the argument of your default extension factory) first');
  }
  if (!validateInput(input)) throw new WorkflowError('INVALID_METADATA', `Invalid role contribution: ${formatAjvErrors(validateInput.errors)}`);
  const contribution = normalize(input);
  const registry = slot();
  // A contribution is its whole content: the same one again is a reload, another one from the same owner is one more.
  const key = JSON.stringify(contribution);
  if (registry.contributions.has(key)) return;
  if (registry.state === 'frozen') {
    throw new WorkflowError(
      'REGISTRY_FROZEN',
      `Role contribution of "${contribution.extension.headline}" (${contribution.owner}) arrived after session start; call registerRoleContribution inside the default extension factory`,
      { owner: contribution.owner },
    );
  }
  registry.contributions.set(key, contribution);
}

/** The contributions, in owner and then content order (never the order extensions happened to load in). */
export function roleContributions(): readonly RoleContribution[] {
  const entries = [...slot().contributions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.freeze(entries.map(([, contribution]) => contribution));
}

export function roleContributionsState(): RoleContributionsState {
  return slot().state;
}

/** At session start (the roles plugin taps `registry.frozen`). */
export function freezeRoleContributions(): void {
  slot().state = 'frozen';
}

/** At shutdown (the roles plugin taps `registry.reset`): empty and loading again. */
export function resetRoleContributions(): void {
  const registry = slot();
  registry.state = 'loading';
  registry.contributions = new Map();
}
