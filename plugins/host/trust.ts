/**
 * Project trust (spec 1 "Trust": a project must be trusted before workflows
 * run there). The decision is Pi's own:
 *
 * - inside Pi, `ctx.isProjectTrusted()` at session start (Pi's answer after
 *   its prompt, `--approve`/`--no-approve`, extensions' `project_trust`
 *   handlers and the stored decision);
 * - outside Pi (`wfcli`), `storedProjectTrust`: what Pi would decide without
 *   asking anyone.
 *
 * Pi treats a project with nothing trust-requiring in it (no `.pi` settings,
 * extensions, skills, prompts, themes, SYSTEM.md or APPEND_SYSTEM.md, no
 * `.agents/skills` in it or above it) as trusted, so ordinary projects are
 * never locked out; only a project whose local resources Pi refused (or never
 * got to ask about) runs no workflow.
 */
import { ProjectTrustStore, SettingsManager, hasTrustRequiringProjectResources } from '@earendil-works/pi-coding-agent';
import { WorkflowError } from '../../kernel/index.js';

/**
 * The trust decision Pi 0.87.1 reaches for `cwd` without a prompt: trusted
 * when nothing there needs trust; else the decision stored in
 * `<agentDir>/trust.json` for the directory or its nearest ancestor; else
 * the global `defaultProjectTrust` setting (`always` / `never`); else not
 * trusted (Pi without UI does not trust a project it could not ask about).
 */
export function storedProjectTrust(cwd: string, agentDir: string): boolean {
  if (!hasTrustRequiringProjectResources(cwd)) return true;
  const stored = new ProjectTrustStore(agentDir).get(cwd);
  if (stored !== null) return stored;
  return SettingsManager.create(cwd, agentDir, { projectTrusted: false }).getDefaultProjectTrust() === 'always';
}

/** The refusal of every workflow launch, resume and retry in a project Pi does not trust. */
export function untrustedProjectError(cwd: string): WorkflowError {
  return new WorkflowError(
    'CONFIG_ERROR',
    `Pi does not trust the project ${cwd}, so no workflow runs here. Trust it with /trust in Pi and restart pi ` +
      '(or start pi with --approve for one session), then run the workflow again. workflow_status and workflow_catalog still answer.',
    { cwd, reason: 'untrusted_project' },
  );
}

/** Throws the refusal unless the project is trusted. */
export function assertProjectTrusted(trusted: boolean, cwd: string): void {
  if (!trusted) throw untrustedProjectError(cwd);
}
