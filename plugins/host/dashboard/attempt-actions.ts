/**
 * Extension attempt actions in an agent's menu (spec 2 "AgentAttemptAction",
 * spec 1 "/workflow command" rule 5): they apply to the agent's latest
 * attempt only and see immutable run, agent and attempt snapshots plus the
 * attempt's persisted session reference. Pure: the command supplies the UI
 * facade and the signal, and runs the chosen action.
 */
import {
  deepFreeze,
  messageOf,
  type AgentSummary,
  type AttemptActionUi,
  type JsonValue,
  type RegisteredAttemptAction,
  type StatusSummary,
  type WorkflowAttemptActionContext,
} from '../../../kernel/index.js';
import type { SessionReference } from './documents.js';

export interface LatestAttempt {
  readonly attempt: number;
  readonly sessionReference?: Readonly<Record<string, JsonValue>>;
}

/** The agent's latest attempt; undefined before its first attempt started. */
export function latestAttempt(agent: AgentSummary, sessions: readonly SessionReference[]): LatestAttempt | undefined {
  const attempt = Math.max(agent.attempts, ...sessions.map((entry) => entry.attempt));
  if (attempt < 1) return undefined;
  const reference = sessions.findLast((entry) => entry.attempt === attempt)?.reference;
  return { attempt, ...(reference === undefined ? {} : { sessionReference: reference }) };
}

const snapshot = (value: unknown): Readonly<Record<string, JsonValue>> => deepFreeze(JSON.parse(JSON.stringify(value)) as Record<string, JsonValue>);

export function attemptContext(run: StatusSummary, agent: AgentSummary, latest: LatestAttempt, ui: AttemptActionUi, signal: AbortSignal): WorkflowAttemptActionContext {
  const { sessionReference } = latest;
  return {
    run: snapshot(run),
    agent: snapshot(agent),
    attempt: snapshot({ agentId: agent.id, attempt: latest.attempt, ...(sessionReference === undefined ? {} : { sessionReference }) }),
    ...(sessionReference === undefined ? {} : { sessionReference: snapshot(sessionReference) }),
    signal,
    ui,
  };
}

export interface OfferedAttemptAction {
  readonly kind: 'attempt';
  readonly label: string;
  readonly action: RegisteredAttemptAction;
}

/**
 * The registered actions whose `visible` accepts this context, labelled with
 * the attempt they apply to. A `visible` that throws hides its action and is
 * reported in `hidden`, so one broken extension does not close the menu.
 */
export function offeredAttemptActions(
  actions: readonly RegisteredAttemptAction[],
  context: WorkflowAttemptActionContext,
  attempt: number,
): { offered: OfferedAttemptAction[]; hidden: string[] } {
  const offered: OfferedAttemptAction[] = [];
  const hidden: string[] = [];
  for (const action of actions) {
    try {
      if (action.visible(context)) offered.push({ kind: 'attempt', label: `${action.label} (attempt ${attempt})`, action });
    } catch (error) {
      hidden.push(`Attempt action "${action.id}" of "${action.extension.headline}" was hidden: its visible() failed: ${messageOf(error)}`);
    }
  }
  return { offered, hidden };
}
