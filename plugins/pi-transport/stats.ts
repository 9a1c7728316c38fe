/** Kernel `SessionStats` from Pi's cumulative session statistics (compaction keeps earlier usage). */
import type { AgentSession } from '@earendil-works/pi-coding-agent';
import type { SessionStats } from '../../kernel/index.js';

/** Input and output tokens exclude cache reads and writes (spec 1 "Budgets" 2); turns are assistant responses. */
export function sessionStats(session: AgentSession): SessionStats {
  const stats = session.getSessionStats();
  return {
    inputTokens: stats.tokens.input,
    outputTokens: stats.tokens.output,
    costUsd: stats.cost,
    turns: stats.assistantMessages,
  };
}
