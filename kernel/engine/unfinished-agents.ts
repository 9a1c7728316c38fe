/**
 * A script that ends while an agent it started still runs (a promise it
 * never awaited: `const p = agent('x'); return 'done';`) ends the segment;
 * the engine cancels what is in flight. The agents' persisted states say so:
 * a completed or failed run never shows an agent `running`.
 */
import type { AgentState } from '../states.js';
import type { RunRecord } from './run-record.js';
import { appendRunEvent } from './run-log.js';

const UNFINISHED: ReadonlySet<AgentState> = new Set(['queued', 'running', 'retrying', 'waiting_for_child', 'paused']);

export function cancelUnfinishedAgents(record: RunRecord): void {
  const at = new Date().toISOString();
  for (const agent of Object.values(record.snapshot.agents)) {
    if (!UNFINISHED.has(agent.state)) continue;
    record.setAgent({ ...agent, state: 'cancelled', lastActivity: at });
    appendRunEvent(record.runDir, {
      at,
      type: 'warning',
      message: `Agent "${agent.label}" (${agent.id}) was still ${agent.state} when the script ended and was cancelled: await every agent call whose work the workflow needs`,
    });
  }
}
