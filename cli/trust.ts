/**
 * Project trust of a headless session (spec 1 "Rules for run"): `--approve`
 * and `--no-approve` decide; otherwise Pi's decision as `pi -p` would make it
 * without UI: a project with nothing that needs trust is trusted, else the
 * stored decision (`/trust`), else `defaultProjectTrust` ("always" trusts,
 * "ask" and "never" do not, as there is no one to ask). Extensions' own
 * `project_trust` answers are not consulted here.
 */
import { ProjectTrustStore, hasTrustRequiringProjectResources, type SettingsManager } from '@earendil-works/pi-coding-agent';

export interface TrustQuery {
  readonly cwd: string;
  readonly agentDir: string;
  /** `--approve` (true) or `--no-approve` (false). */
  readonly override?: boolean;
  /** Settings read without project trust (the global `defaultProjectTrust`). */
  readonly settings: SettingsManager;
}

/** What decided: a flag, nothing to trust in the project, the stored `/trust` answer, or `defaultProjectTrust`. */
export type TrustSource = 'flag' | 'no-project-resources' | 'stored' | 'default';

export interface TrustDecision {
  readonly trusted: boolean;
  readonly decidedBy: TrustSource;
}

export function projectTrustDecision(query: TrustQuery): TrustDecision {
  if (query.override !== undefined) return { trusted: query.override, decidedBy: 'flag' };
  if (!hasTrustRequiringProjectResources(query.cwd)) return { trusted: true, decidedBy: 'no-project-resources' };
  const stored = new ProjectTrustStore(query.agentDir).get(query.cwd);
  if (stored !== null) return { trusted: stored, decidedBy: 'stored' };
  return { trusted: query.settings.getDefaultProjectTrust() === 'always', decidedBy: 'default' };
}
