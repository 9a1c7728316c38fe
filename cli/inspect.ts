/**
 * `wfcli inspect [session-id] [--json | --summary] [--failed]`: the persisted
 * artifacts of this project's runs (every session, or one), read from the
 * run store without starting Pi: each run's state and failure, its agents
 * with attempts, usage, the session reference and transcript file of every attempt, the
 * system-prompt records (with their SHA-256; `--json` has the bodies' sizes),
 * named worktrees, the budget, warnings from the event log, and where the
 * artifacts are. Anything unreadable is named under `problems` instead of
 * hiding the rest.
 */
import { readRunEvents } from '../kernel/engine/run-events.js';
import type { StatusSummary } from '../kernel/engine/status.js';
import type { JsonValue } from '../kernel/json.js';
import { readRunFiles } from '../lib/run-files.js';
import { NO_USAGE, addUsage, runUsage } from '../kernel/usage.js';
import { EXIT_OK, JSON_OPTION, UsageError, flag, printJson, type CliIo, type CommandSpec, type ParsedCommand } from './command.js';
import { printable } from '../lib/terminal-text.js';
import { agentNameOf, formatBudget, formatStatus, formatUsage, formatWorktrees } from './format.js';
import { projectRuns } from './list.js';

export interface RunInspection {
  readonly run: StatusSummary;
  readonly runDir: string;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number; readonly costUsd: number };
  /** `transcript`: the attempt's native session file, when its reference names one (`wfcli transcript <file>` shows it). */
  readonly attempts: readonly { readonly agentId: string; readonly attempt: number; readonly reference: Readonly<Record<string, JsonValue>>; readonly transcript?: string }[];
  readonly systemPrompts: readonly { readonly agentId: string; readonly attempt: number; readonly turn: number; readonly sha256: string; readonly characters?: number }[];
  readonly warnings: readonly { readonly at?: string; readonly message: string }[];
  readonly problems: readonly string[];
}

const FAILED_STATES: ReadonlySet<string> = new Set(['failed', 'budget_exhausted']);

/** Runs that failed or halted on their budget, or that hold a failed agent. */
export function isFailedRun(run: StatusSummary): boolean {
  return FAILED_STATES.has(run.state) || run.agents.some((agent) => agent.state === 'failed');
}

/** `warning` entries of events.jsonl (read bounded, never through a link); a torn line is skipped, an unreadable file is a problem. */
export function runWarnings(runDir: string, problems: string[] = []): { at?: string; message: string }[] {
  const events = readRunEvents(runDir);
  if (events.problem !== undefined) problems.push(events.problem);
  return events.entries.flatMap((entry) => (entry.type === 'warning' && typeof entry['message'] === 'string' ? [{ at: entry.at, message: entry['message'] }] : []));
}

export function inspectRun(run: StatusSummary, runDir: string): RunInspection {
  const files = readRunFiles(runDir);
  const problems = [...files.problems];
  const usage = runUsage(run.agents);
  return {
    run,
    runDir,
    usage,
    attempts: [...files.sessions].flatMap(([agentId, references]) =>
      references.map((entry) => {
        const file = entry.reference['sessionFile'];
        return { agentId, attempt: entry.attempt, reference: entry.reference, ...(typeof file === 'string' ? { transcript: file } : {}) };
      }),
    ),
    systemPrompts: files.systemPrompts.map(({ agentId, attempt, turn, sha256, text }) => ({ agentId, attempt, turn, sha256, ...(text === undefined ? {} : { characters: text.length }) })),
    warnings: runWarnings(runDir, problems),
    problems,
  };
}

function formatInspection(inspection: RunInspection): string {
  // Agents by name; the raw IDs stay in --json.
  const name = (agentId: string): string => agentNameOf(inspection.run, agentId);
  const lines = [`  usage      ${formatUsage(inspection.usage)}`, `  directory  ${inspection.runDir}`];
  for (const attempt of inspection.attempts) {
    lines.push(`  attempt    ${name(attempt.agentId)} attempt ${attempt.attempt}: ${JSON.stringify(attempt.reference)}`);
    if (attempt.transcript !== undefined) lines.push(`  transcript ${attempt.transcript}`);
  }
  for (const prompt of inspection.systemPrompts) {
    lines.push(`  prompt     ${name(prompt.agentId)} attempt ${prompt.attempt} turn ${prompt.turn}: sha256 ${prompt.sha256.slice(0, 12)}…${prompt.characters === undefined ? ' (body missing)' : `, ${prompt.characters} characters`}`);
  }
  for (const warning of inspection.warnings) lines.push(`  warning    ${warning.message}`);
  for (const problem of inspection.problems) lines.push(`  problem    ${problem}`);
  return `${[formatStatus(inspection.run).trimEnd(), ...lines.map(printable)].join('\n')}\n`;
}

function summaryLine(inspection: RunInspection): string {
  const { run } = inspection;
  const failure = run.failure === undefined ? '' : ` ${run.failure.code}`;
  const extras = [formatBudget(run.plugins), ...formatWorktrees(run.plugins).map((worktree) => `worktree ${worktree}`)].filter((part) => part !== undefined);
  return printable(`${run.runId}  ${run.state}${failure}  ${run.workflow.name}  ${run.agents.length} agent(s), ${formatUsage(inspection.usage)}${extras.length === 0 ? '' : `  ${extras.join('; ')}`}`);
}

async function run(parsed: ParsedCommand, io: CliIo): Promise<number> {
  if (flag(parsed, 'json') && flag(parsed, 'summary')) throw new UsageError('--json and --summary exclude each other');
  const [sessionId] = parsed.positionals;
  const runs = projectRuns(io, sessionId, (message) => io.stderr(`warning: ${printable(message)}\n`))
    .filter((entry) => !flag(parsed, 'failed') || isFailedRun(entry.summary))
    .map((entry) => inspectRun(entry.summary, entry.runDir));
  if (flag(parsed, 'json')) printJson(io, runs);
  else if (runs.length === 0) io.stdout(`no ${flag(parsed, 'failed') ? 'failed ' : ''}runs${sessionId === undefined ? ' in this project' : ` in session ${printable(sessionId)}`}\n`);
  else if (flag(parsed, 'summary')) {
    for (const inspection of runs) io.stdout(`${summaryLine(inspection)}\n`);
    const total = runs.reduce((sum, inspection) => addUsage(sum, inspection.usage), NO_USAGE);
    io.stdout(`${runs.length} run(s), ${formatUsage(total)}\n`);
  } else io.stdout(runs.map(formatInspection).join('\n'));
  return EXIT_OK;
}

export const inspectCommand: CommandSpec = {
  name: 'inspect',
  usage: ['wfcli inspect [session-id] [--json | --summary] [--failed]'],
  help: `  session-id   only the runs of this Pi (or wfcli) session; default every session of the project
  --json       the inspections as a JSON array
  --summary    one line per run and the totals
  --failed     only runs that failed or exhausted their budget, or hold a failed agent

Per run: state and failure, phase, budget and usage, named worktrees, agents
(state, attempts, tokens, cost), the session reference of every attempt and
its transcript (the native session file; open it with wfcli transcript), the
recorded system prompts (agent, attempt, turn, SHA-256), warnings from the
event log and the run directory. Reads the run store only (no Pi session).`,
  options: { summary: { type: 'boolean' }, failed: { type: 'boolean' }, ...JSON_OPTION },
  positionals: { min: 0, max: 1 },
  run,
};
