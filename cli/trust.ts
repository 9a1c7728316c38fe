/**
 * Project trust of a headless session (spec 1 "Rules for run"): `--approve`
 * and `--no-approve` decide; otherwise Pi's decision as `pi -p` would make it
 * without UI (`storedProjectTrust`, plugins/host/trust.ts): a project with
 * nothing that needs trust is trusted, else the stored decision (`/trust`),
 * else `defaultProjectTrust` ("always" trusts; "ask" and "never" do not, as
 * there is no one to ask). Extensions' own `project_trust` answers are not
 * consulted here. An untrusted project runs no workflow (the host refuses).
 */
import { ProjectTrustStore, hasTrustRequiringProjectResources } from '@earendil-works/pi-coding-agent';
import { storedProjectTrust } from '../plugins/host/trust.js';

export interface TrustQuery {
  readonly cwd: string;
  readonly agentDir: string;
  /** `--approve` (true) or `--no-approve` (false). */
  readonly override?: boolean;
}

/** What decided: a flag, nothing to trust in the project, the stored `/trust` answer, or `defaultProjectTrust`. */
export type TrustSource = 'flag' | 'no-project-resources' | 'stored' | 'default';

export interface TrustDecision {
  readonly trusted: boolean;
  readonly decidedBy: TrustSource;
}

export function projectTrustDecision(query: TrustQuery): TrustDecision {
  if (query.override !== undefined) return { trusted: query.override, decidedBy: 'flag' };
  const trusted = storedProjectTrust(query.cwd, query.agentDir);
  if (!hasTrustRequiringProjectResources(query.cwd)) return { trusted, decidedBy: 'no-project-resources' };
  return { trusted, decidedBy: new ProjectTrustStore(query.agentDir).get(query.cwd) === null ? 'default' : 'stored' };
}
