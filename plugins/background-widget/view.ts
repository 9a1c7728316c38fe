/**
 * What the background widget draws (plain text lines, no Pi imports): this
 * session's background runs that have not ended, each with its agents
 * grouped as /workflow groups them (kernel agentTree), and the one-line
 * receipt left in the transcript when a run ends. Names, labels and phases
 * come from scripts: every line is `printable` (lib/terminal-text.ts).
 */
import { AGENT_STATES, agentTree, runUsage, type AgentState, type AgentSummary, type AgentTreeNode, type StatusSummary } from '../../kernel/index.js';
import { printable } from '../../lib/terminal-text.js';
import { costText } from '../../lib/usage-text.js';
import { durationText, runTime, runTimeText } from '../../lib/run-time.js';

/** Most lines the widget takes above the editor. */
export const WIDGET_MAX_LINES = 12;

/**
 * Run states that end a background run's segment: the widget drops it and
 * leaves a receipt. `paused` too: a pause given elsewhere (the viewer, wfcli)
 * would otherwise just take the run off the widget without a word.
 */
export const RECEIPT_STATES: ReadonlySet<string> = new Set(['completed', 'failed', 'stopped', 'budget_exhausted', 'paused']);

function tokens(usage: AgentSummary['usage']): number {
  return usage.inputTokens + usage.outputTokens;
}

function usageText(usage: AgentSummary['usage']): string {
  return tokens(usage) === 0 && usage.costUsd === 0 ? '' : `${tokens(usage).toLocaleString('en-US')} tok · ${costText(usage.costUsd, tokens(usage))}`;
}

function counts(agents: readonly AgentSummary[]): string {
  if (agents.length === 0) return 'no agents';
  const by = new Map<AgentState, number>();
  for (const agent of agents) by.set(agent.state, (by.get(agent.state) ?? 0) + 1);
  return `${agents.length} ${agents.length === 1 ? 'agent' : 'agents'}: ${AGENT_STATES.filter((state) => by.has(state)).map((state) => `${by.get(state)} ${state}`).join(', ')}`;
}

/**
 * The standalone subagents plugin marks its runs with its state under this
 * key (its runs are one-call scripts named `subagent`): they read as the
 * subagent they are, by its label, not as a workflow named `subagent`.
 */
const SUBAGENT_STATE = 'subagents';

type Named = Pick<StatusSummary, 'workflow' | 'plugins' | 'agents'>;

/** A standalone subagent's words (`subagent reviewer`: its agent's label), undefined for a workflow run. */
function subagentWords(run: Named): readonly string[] | undefined {
  if (run.plugins[SUBAGENT_STATE] === undefined) return undefined;
  const label = run.agents.find((agent) => agent.parentId === undefined)?.label ?? run.workflow.description;
  return label === undefined ? [] : [label];
}

/** What a run is called on its widget line: `review`, or `subagent reviewer`. */
export function runName(run: Named): string {
  const subagent = subagentWords(run);
  return subagent === undefined ? run.workflow.name : ['subagent', ...subagent].join(' ');
}

function agentLine(agent: AgentSummary): string {
  return [agent.label, agent.state, ...(agent.attempts > 1 ? [`attempt ${agent.attempts}`] : []), ...(usageText(agent.usage) === '' ? [] : [usageText(agent.usage)])].join(' · ');
}

export function widgetLines(runs: readonly StatusSummary[]): string[] {
  if (runs.length === 0) return [];
  const lines = [`Background workflows (${runs.length})`];
  for (const run of runs) {
    lines.push(`◆ ${[runName(run), run.runId, run.state, ...(run.phase === undefined ? [] : [`phase ${run.phase}`]), counts(run.agents)].join(' · ')}`);
    const walk = (nodes: readonly AgentTreeNode[], depth: number): void => {
      for (const node of nodes) {
        lines.push(`${'  '.repeat(depth)}${node.kind === 'agent' ? agentLine(node.agent) : node.text}`);
        walk(node.children, depth + 1);
      }
    };
    walk(agentTree(run.agents), 1);
  }
  if (lines.length <= WIDGET_MAX_LINES) return lines.map(printable);
  return [...lines.slice(0, WIDGET_MAX_LINES - 1).map(printable), `… ${lines.length - WIDGET_MAX_LINES + 1} more lines (/workflow shows every run)`];
}

/** The transcript receipt of a background run that ended. */
export interface Receipt {
  readonly runId: string;
  readonly workflow: string;
  /** Set for a standalone subagent: its title (`Subagent reviewer`); receipts without it read `Workflow <workflow>`. */
  readonly title?: string;
  readonly state: string;
  readonly agents: number;
  readonly usage: AgentSummary['usage'];
  /** Active time (lib/run-time.ts); the wall time in receipts of runs stored before active time was kept. */
  readonly durationMs: number;
  /** Wall time; absent in receipts written before it was kept, which show one unlabelled duration. */
  readonly wallMs?: number;
  /** False when `durationMs` is the wall time (a run stored before active time was kept). */
  readonly active?: boolean;
  readonly code?: string;
}

export function receiptOf(run: StatusSummary, now = Date.now()): Receipt {
  // A parent's usage holds its nested children's: the run's is the sum of its top-level agents.
  const usage = runUsage(run.agents);
  // A receipt is written when the segment ended: a paused run's wall time runs to that moment.
  const time = runTime({ ...run, executing: false }, run.terminalAt === undefined ? Date.parse(run.updatedAt) || now : now);
  const subagent = subagentWords(run);
  return {
    runId: run.runId,
    workflow: run.workflow.name,
    ...(subagent === undefined ? {} : { title: ['Subagent', ...subagent].join(' ') }),
    state: run.state,
    agents: run.agents.length,
    usage,
    durationMs: time.activeMs ?? time.wallMs,
    wallMs: time.wallMs,
    active: time.activeMs !== undefined,
    ...(run.failure === undefined ? {} : { code: run.failure.code }),
  };
}

const MARKS: Readonly<Record<string, string>> = { completed: '✓', failed: '✗', stopped: '■', budget_exhausted: '◼', paused: '‖' };

export function receiptText(receipt: Receipt): string {
  const seconds = receipt.wallMs === undefined ? durationText(receipt.durationMs) : receipt.active === false ? `${durationText(receipt.wallMs)} wall` : runTimeText({ wallMs: receipt.wallMs, activeMs: receipt.durationMs });
  const parts = [`${MARKS[receipt.state] ?? '•'} ${receipt.title ?? `Workflow ${receipt.workflow}`} (${receipt.runId}) ${receipt.state.replace('_', ' ')}${receipt.code === undefined ? '' : `: ${receipt.code}`}`, `${receipt.agents} ${receipt.agents === 1 ? 'agent' : 'agents'}`];
  if (usageText(receipt.usage) !== '') parts.push(usageText(receipt.usage));
  parts.push(seconds);
  if (receipt.state === 'paused') parts.push('resume it from /workflow');
  return printable(parts.join(' · '));
}
