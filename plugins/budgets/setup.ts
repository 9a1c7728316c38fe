/**
 * The per-attempt setup tap: refuse model work while a token, cost or
 * duration hard limit is reached, annotate agents that start after a soft
 * crossing (turn control text, delivered right after the task, after any
 * retry text), and wrap the transport so the session is counted and observed.
 */
import type { AgentSetup, AgentSetupContext } from '../../kernel/index.js';
import { ledgerOf, softNoticeText } from './ledger.js';
import { observedTransport } from './session.js';

export function setupAgent(agent: AgentSetup, context: AgentSetupContext): AgentSetup {
  const ledger = ledgerOf(context.access);
  const label = agent.sessionInput.sessionLabel;
  ledger.assertTurnBudget(label);
  const soft = ledger.softReached();
  const transport = observedTransport(agent.transport, ledger, { label, annotated: soft.length > 0 });
  if (soft.length === 0) return { ...agent, transport };
  const notice = softNoticeText(soft);
  const previous = agent.prepared.turnControl;
  const turnControl = previous === undefined || previous === '' ? notice : `${previous}\n\n${notice}`;
  return { ...agent, prepared: { ...agent.prepared, turnControl }, transport };
}
