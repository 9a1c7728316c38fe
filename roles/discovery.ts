/**
 * Role discovery and precedence (spec 2 "Bundled starter", spec 1 "What the
 * service does"). Lowest to highest:
 *
 *   fallback (this package) < extension directories < global < trusted project
 *
 * - Two extension directories defining the same name is an error: neither
 *   extension outranks the other.
 * - The global directory is `<agentDir>/pi-extensible-workflows/roles/`, the
 *   project one `<cwd>/.pi/pi-extensible-workflows/roles/`, read only for a
 *   trusted project. A missing global or project directory has no roles; a
 *   missing extension directory is an error.
 *
 * Discovery fails closed: one invalid file, duplicate or unreadable
 * directory blocks the whole role set, with every problem named.
 */
import type { Dirent } from 'node:fs';
import { readFile, readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SETTINGS_DIR_NAME, WorkflowError, messageOf } from '../kernel/index.js';
import type { RoleContribution } from './contributions.js';
import { FALLBACK_ROLES } from './fallback.js';
import { parseRoleFile, roleNameOf, type RoleDefinition } from './role-file.js';

export type RoleSourceKind = 'fallback' | 'extension' | 'global' | 'project';

export interface RoleSource {
  readonly kind: RoleSourceKind;
  /** The role file (absent for fallback roles). */
  readonly file?: string;
  /** The contributing extension (extension roles only). */
  readonly extension?: { readonly headline: string; readonly version: string };
}

export interface DiscoveredRole {
  readonly definition: RoleDefinition;
  readonly source: RoleSource;
}

export type RoleSet = ReadonlyMap<string, DiscoveredRole>;

export interface RoleDiscoveryInput {
  readonly contributions: readonly RoleContribution[];
  readonly agentDir: string;
  /** The launch project, whose roles count only when it is trusted. */
  readonly projectCwd: string;
  readonly projectTrusted: boolean;
  /** Expands `~` in extension selectors. */
  readonly home: string;
  readonly signal?: AbortSignal;
}

export interface RoleProblem {
  readonly path: string;
  readonly message: string;
}

export const ROLES_DIR_NAME = 'roles';

export function globalRolesDir(agentDir: string): string {
  return join(agentDir, SETTINGS_DIR_NAME, ROLES_DIR_NAME);
}

export function projectRolesDir(cwd: string): string {
  return join(cwd, '.pi', SETTINGS_DIR_NAME, ROLES_DIR_NAME);
}

/** A problem found while reading: collected, so one report names every bad file. */
class Problems {
  readonly list: RoleProblem[] = [];
  add(path: string, error: unknown): void {
    this.list.push({ path, message: messageOf(error).replace(`Role file ${path}: `, '') });
  }
}

/** The role files of one directory, parsed; undefined when the directory does not exist. */
async function readDirectory(directory: string, home: string, problems: Problems): Promise<RoleDefinition[] | undefined> {
  let entries: Dirent[];
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    problems.add(directory, error);
    return [];
  }
  const roles: RoleDefinition[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (roleNameOf(entry.name) === undefined) continue;
    const file = join(directory, entry.name);
    try {
      // A symbolic link counts when it points at a file.
      if (!entry.isFile() && !(entry.isSymbolicLink() && (await stat(file)).isFile())) continue;
      roles.push(parseRoleFile(await readFile(file, 'utf8'), file, home));
    } catch (error) {
      problems.add(file, error);
    }
  }
  return roles;
}

async function canonical(directory: string): Promise<string> {
  try {
    return await realpath(directory);
  } catch {
    return directory;
  }
}

function cancelled(): WorkflowError {
  return new WorkflowError('CANCELLED', 'role discovery was cancelled');
}

/**
 * The effective role set. @throws CONFIG_ERROR listing every problem (the
 * role set is unusable), CANCELLED when the signal aborted
 */
export async function discoverRoles(input: RoleDiscoveryInput): Promise<RoleSet> {
  const problems = new Problems();
  const roles = new Map<string, DiscoveredRole>(FALLBACK_ROLES.map((definition) => [definition.name, { definition, source: { kind: 'fallback' } }]));

  // Extension directories: one definition per name across all of them.
  const fromExtensions = new Map<string, DiscoveredRole>();
  const seen = new Set<string>();
  for (const contribution of input.contributions) {
    for (const directory of contribution.directories) {
      if (input.signal?.aborted) throw cancelled();
      const key = await canonical(directory);
      if (seen.has(key)) continue;
      seen.add(key);
      const found = await readDirectory(directory, input.home, problems);
      if (found === undefined) {
        problems.add(directory, `the role directory of extension "${contribution.extension.headline}" does not exist`);
        continue;
      }
      for (const definition of found) {
        const file = join(directory, `${definition.name}.md`);
        const other = fromExtensions.get(definition.name);
        if (other !== undefined) {
          problems.add(file, `role "${definition.name}" is also defined by extension "${other.source.extension?.headline ?? '?'}" in ${other.source.file ?? '?'}; role names must be unique across extension role directories`);
          continue;
        }
        fromExtensions.set(definition.name, { definition, source: { kind: 'extension', file, extension: contribution.extension } });
      }
    }
  }
  for (const [name, role] of fromExtensions) roles.set(name, role);

  const layers: { readonly kind: 'global' | 'project'; readonly directory: string }[] = [{ kind: 'global', directory: globalRolesDir(input.agentDir) }];
  if (input.projectTrusted) layers.push({ kind: 'project', directory: projectRolesDir(input.projectCwd) });
  for (const { kind, directory } of layers) {
    if (input.signal?.aborted) throw cancelled();
    for (const definition of (await readDirectory(directory, input.home, problems)) ?? []) {
      roles.set(definition.name, { definition, source: { kind, file: join(directory, `${definition.name}.md`) } });
    }
  }
  if (input.signal?.aborted) throw cancelled();

  if (problems.list.length > 0) {
    const lines = problems.list.map((problem) => `${problem.path}: ${problem.message}`);
    throw new WorkflowError('CONFIG_ERROR', `The role set cannot be used until ${problems.list.length === 1 ? 'this problem is' : 'these problems are'} fixed: ${lines.join('; ')}`, {
      problems: problems.list.map((problem) => ({ path: problem.path, message: problem.message })),
    });
  }
  return roles;
}
