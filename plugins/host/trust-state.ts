/**
 * The project trust decision as the host, the engine and wfcli use it
 * (docs/settings.md "Trust"), and the words of a refusal. The decision
 * itself is made in trust.ts (with Pi's SDK); this module loads nothing of
 * Pi, so a command that only reports a refusal stays light.
 */
import { join, relative } from 'node:path';
import { WorkflowError } from '../../kernel/index.js';

/** `trusted`: project files apply; `excluded` (`--no-approve`): workflows run without them; the others run nothing. */
export type ProjectTrustState = 'trusted' | 'excluded' | 'untrusted' | 'undecided';

/**
 * What decided: a flag, Pi's own decision in this process, the stored
 * decision, nothing in the project needing trust, `defaultProjectTrust`,
 * the answer to this package's prompt, or nothing (undecided).
 */
export type TrustSource = 'flag' | 'pi' | 'stored' | 'no-project-resources' | 'default' | 'prompt' | 'none';

export interface ProjectTrust {
  /** The project directory, resolved. */
  readonly cwd: string;
  readonly state: ProjectTrustState;
  readonly decidedBy: TrustSource;
  /** The project files that need trust and exist (absolute paths): Pi's and this package's. */
  readonly files: readonly string[];
}

/** Pi's trust file, where the decisions are stored (Pi's `ProjectTrustStore`). */
export function trustFile(agentDir: string): string {
  return join(agentDir, 'trust.json');
}

/** Whether workflows launch, resume and retry here. */
export function runsAllowed(trust: ProjectTrust): boolean {
  return trust.state === 'trusted' || trust.state === 'excluded';
}

function fileList(trust: ProjectTrust): string {
  const names = trust.files.map((file) => relative(trust.cwd, file));
  return names.length === 0 ? 'none found now' : names.join(', ');
}

/** Why the project is not trusted, naming its files: "The project … has files that need trust (…) and no trust decision". */
export function trustStatement(trust: ProjectTrust, agentDir: string): string {
  if (trust.state === 'undecided') return `The project ${trust.cwd} has files that need trust (${fileList(trust)}) and no trust decision`;
  const source =
    trust.decidedBy === 'stored'
      ? `decision stored in ${trustFile(agentDir)}`
      : trust.decidedBy === 'default'
        ? 'defaultProjectTrust "never"'
        : trust.decidedBy === 'prompt'
          ? 'your answer to the trust prompt'
          : "Pi's decision for this session";
  return `Pi does not trust the project ${trust.cwd} (${source}; its files that need trust: ${fileList(trust)})`;
}

/** Pi's ways to trust a project; wfcli adds its flags (cli/command.ts). */
const HOW_TO_TRUST = "trust it with /trust in pi and restart pi (or start pi with --approve for one session), or start pi with --no-approve to run workflows without the project's files.";

/**
 * The refusal of every workflow launch, resume and retry in a project that
 * is not trusted: names the project files and how to trust the project.
 */
export function untrustedProjectError(trust: ProjectTrust, agentDir: string): WorkflowError {
  const how = trust.state === 'undecided' ? `Answer the trust prompt of an interactive pi started here, or ${HOW_TO_TRUST}` : `${HOW_TO_TRUST.charAt(0).toUpperCase()}${HOW_TO_TRUST.slice(1)}`;
  return new WorkflowError('CONFIG_ERROR', `${trustStatement(trust, agentDir)}, so no workflow runs here and none of its files is read. ${how} workflow_status and workflow_catalog still answer.`, {
    cwd: trust.cwd,
    reason: 'untrusted_project',
    state: trust.state,
    files: [...trust.files],
  });
}
