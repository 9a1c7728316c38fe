/**
 * Project trust (spec 1 "Trust": a project must be trusted before workflows
 * or `wfcli doctor` run there; docs/settings.md "Trust" holds the rule).
 *
 * The project files that need trust are Pi's own (`.pi/settings.json`,
 * extensions, skills, prompts, themes, SYSTEM.md, APPEND_SYSTEM.md, Pi 1.x's
 * mcp.json, `.agents/skills` in the project or above it) and this package's
 * (`.pi/pi-extensible-workflows/settings.json` and `roles/`). Pi asks only
 * about its own: a project holding only this package's files looks trusted
 * to Pi, so the decision here never takes Pi's word for it alone.
 *
 * One decision for `pi` and `wfcli`, stored where Pi stores its own
 * (`<agentDir>/trust.json`, the directory or its nearest ancestor):
 *
 * - `--approve` trusts (`trusted`), `--no-approve` runs workflows without
 *   any project file (`excluded`);
 * - else, in a Pi process, never more than Pi trusts: Pi's "not trusted"
 *   stands, and where Pi's own files exist its "trusted" (its prompt, an
 *   extension's `project_trust` answer ...) covers the whole `.pi`;
 * - else the stored decision; else trusted when nothing needs trust; else
 *   the global `defaultProjectTrust` (`always` / `never`); else `undecided`:
 *   interactive Pi asks (session-trust.ts), everything else refuses.
 *
 * Only `trusted` reads project files; `trusted` and `excluded` run workflows.
 */
import { lstatSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { homedir } from 'node:os';
import { ProjectTrustStore, SettingsManager, hasTrustRequiringProjectResources } from '@earendil-works/pi-coding-agent';
import { SETTINGS_DIR_NAME, SETTINGS_FILE_NAME, WorkflowError, messageOf } from '../../kernel/index.js';
import { trustFile, type ProjectTrust, type ProjectTrustState, type TrustSource } from './trust-state.js';

export interface TrustInput {
  readonly cwd: string;
  readonly agentDir: string;
  /** `--approve` (true) or `--no-approve` (false). */
  readonly override?: boolean | undefined;
  /** Pi's own decision for this session (`ctx.isProjectTrusted()`), when a Pi process decided; wfcli has none. */
  readonly pi?: boolean | undefined;
}

/** This package's project files, relative to the project: what its settings loader and role discovery read. */
export const PACKAGE_PROJECT_FILES: readonly string[] = [join('.pi', SETTINGS_DIR_NAME, SETTINGS_FILE_NAME), join('.pi', SETTINGS_DIR_NAME, 'roles')];

/** Pi's entries under `.pi` that make it ask (Pi 0.87 and 1.x), for naming them; Pi's own check decides. */
const PI_PROJECT_FILES: readonly string[] = ['settings.json', 'extensions', 'skills', 'prompts', 'themes', 'SYSTEM.md', 'APPEND_SYSTEM.md', 'mcp.json'].map((entry) => join('.pi', entry));

/** Present as anything, a dangling link included: a reader would try to open it. */
function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** This package's project files that exist in `cwd`. */
export function packageProjectFiles(cwd: string): string[] {
  const root = resolve(cwd);
  return PACKAGE_PROJECT_FILES.map((entry) => join(root, entry)).filter(present);
}

/** `.agents/skills` in the project or above it, except the user's own (`~/.agents/skills`), as Pi counts them. */
function agentsSkills(root: string): string[] {
  const own = join(resolve(process.env['HOME'] || homedir()), '.agents', 'skills');
  const found: string[] = [];
  for (let dir = root; ; dir = dirname(dir)) {
    const skills = join(dir, '.agents', 'skills');
    if (skills !== own && present(skills)) found.push(skills);
    if (dirname(dir) === dir) return found;
  }
}

/** Every project file that needs trust and exists: Pi's (as far as this package knows them) and this package's. */
export function trustRequiringFiles(cwd: string): string[] {
  const root = resolve(cwd);
  const pi = PI_PROJECT_FILES.map((entry) => join(root, entry)).filter(present);
  return [...pi, ...agentsSkills(root), ...packageProjectFiles(root)];
}

/** The stored decision for `cwd` or its nearest ancestor; a broken trust file is a CONFIG_ERROR naming it. */
export function storedDecision(cwd: string, agentDir: string): boolean | null {
  try {
    return new ProjectTrustStore(agentDir).get(cwd);
  } catch (error) {
    throw new WorkflowError('CONFIG_ERROR', `Cannot read Pi's project trust decisions in ${trustFile(agentDir)}: ${messageOf(error)}`, { path: trustFile(agentDir) }, { cause: error });
  }
}

function defaultProjectTrust(cwd: string, agentDir: string): 'always' | 'never' | 'ask' {
  // Pi reads it from the global settings only.
  return SettingsManager.create(cwd, agentDir, { projectTrusted: false }).getDefaultProjectTrust();
}

/** The decision without asking anyone (docs/settings.md "Trust"). */
export function decideProjectTrust(input: TrustInput): ProjectTrust {
  const cwd = resolve(input.cwd);
  const files = trustRequiringFiles(cwd);
  const decided = (state: ProjectTrustState, decidedBy: TrustSource): ProjectTrust => ({ cwd, state, decidedBy, files });
  if (input.override === true) return decided('trusted', 'flag');
  if (input.override === false) return decided('excluded', 'flag');
  const piFiles = hasTrustRequiringProjectResources(cwd);
  const stored = storedDecision(cwd, input.agentDir);
  // Never more trusting than Pi: a session Pi does not trust reads no project file and runs no workflow.
  if (input.pi === false) {
    if (stored === false) return decided('untrusted', 'stored');
    const nobodyDecided = stored === null && files.length > 0 && defaultProjectTrust(cwd, input.agentDir) === 'ask';
    return decided(nobodyDecided ? 'undecided' : 'untrusted', 'pi');
  }
  // Pi asked about its own files (or took its stored decision): its answer covers the whole `.pi`.
  if (input.pi === true && piFiles) return decided('trusted', 'pi');
  if (stored !== null) return decided(stored ? 'trusted' : 'untrusted', 'stored');
  if (!piFiles && files.length === 0) return decided('trusted', 'no-project-resources');
  const fallback = defaultProjectTrust(cwd, input.agentDir);
  if (fallback !== 'ask') return decided(fallback === 'always' ? 'trusted' : 'untrusted', 'default');
  return decided('undecided', 'none');
}
