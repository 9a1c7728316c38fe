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

export function headlessProjectTrust(query: TrustQuery): boolean {
  if (query.override !== undefined) return query.override;
  if (!hasTrustRequiringProjectResources(query.cwd)) return true;
  const stored = new ProjectTrustStore(query.agentDir).get(query.cwd);
  if (stored !== null) return stored;
  return query.settings.getDefaultProjectTrust() === 'always';
}
