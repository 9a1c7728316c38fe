/**
 * `wfcli doctor cleanup [--older-than-days <days>] [--yes] [--json]`: removes
 * terminal runs (completed, failed, stopped) of this project, every session.
 * Dry run first: without `--yes` it only says what it would remove and skip.
 * With `--yes` the engine deletes them (`WorkflowEngine.deleteRuns`), which
 * re-checks each run under its lock and skips, and reports, a run that a
 * surviving run still needs (its `parentRunId`), a run that is no longer
 * terminal, or one that is executing. Like doctor, it needs a trusted project.
 */
import type { StatusSummary } from '../kernel/engine/status.js';
import { WorkflowError } from '../kernel/errors.js';
import { TERMINAL_RUN_STATES } from '../kernel/states.js';
import { printable } from '../lib/terminal-text.js';
import { EXIT_FAILED, EXIT_OK, JSON_OPTION, UsageError, flag, printJson, stringOption, type CliIo, type CommandSpec, type ParsedCommand } from './command.js';
import { projectRuns } from './list.js';
import { withLocalSession } from './session.js';

const DAY_MS = 24 * 60 * 60 * 1000;

interface Skip {
  readonly runId: string;
  readonly reason: string;
  readonly message: string;
  readonly dependents?: readonly string[];
}

function olderThanDays(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(text)) throw new UsageError(`--older-than-days takes a number of days, not "${text}"`);
  return Number(text);
}

/** Terminal runs that ended before the cutoff (when one is given). */
export function cleanupCandidates(runs: readonly StatusSummary[], days: number | undefined, now: number): StatusSummary[] {
  return runs.filter((run) => TERMINAL_RUN_STATES.has(run.state) && (days === undefined || now - Date.parse(run.terminalAt ?? run.updatedAt) >= days * DAY_MS));
}

/**
 * What the deletion would skip as protected: a candidate whose run a
 * survivor names as `parentRunId`; a protected candidate survives in turn.
 */
export function protectedCandidates(runs: readonly StatusSummary[], candidates: readonly string[]): Skip[] {
  const removing = new Set(candidates);
  const skips: Skip[] = [];
  for (let changed = true; changed; ) {
    changed = false;
    for (const runId of removing) {
      const dependents = runs.filter((run) => run.parentRunId === runId && !removing.has(run.runId)).map((run) => run.runId);
      if (dependents.length === 0) continue;
      removing.delete(runId);
      skips.push({ runId, reason: 'protected', message: `run ${runId} is needed by ${dependents.join(', ')}`, dependents });
      changed = true;
    }
  }
  return skips;
}

function print(io: CliIo, verb: string, removed: readonly string[], skipped: readonly Skip[]): void {
  io.stdout(removed.length === 0 ? `${verb} no runs\n` : `${verb} ${removed.length} run(s):\n${removed.map((runId) => `  ${printable(runId)}\n`).join('')}`);
  if (skipped.length > 0) io.stdout(`skip${verb.startsWith('would') ? '' : 'ped'} ${skipped.length} run(s):\n${skipped.map((skip) => `  ${printable(`${skip.runId}: ${skip.reason}: ${skip.message}`)}\n`).join('')}`);
}

async function run(parsed: ParsedCommand, io: CliIo): Promise<number> {
  const days = olderThanDays(stringOption(parsed, 'older-than-days'));
  const json = flag(parsed, 'json');
  const warn = (message: string): void => io.stderr(`warning: ${printable(message)}\n`);
  const runs = projectRuns(io, undefined, warn).map((entry) => entry.summary);
  const candidates = cleanupCandidates(runs, days, Date.now()).map((summary) => summary.runId);
  if (!flag(parsed, 'yes')) {
    const skip = protectedCandidates(runs, candidates);
    const remove = candidates.filter((runId) => !skip.some((entry) => entry.runId === runId));
    if (json) printJson(io, { dryRun: true, remove, skip });
    else {
      print(io, 'would remove', remove, skip);
      if (remove.length > 0) io.stdout('run again with --yes to remove them\n');
    }
    return EXIT_OK;
  }
  return withLocalSession(io, {}, async ({ host }) => {
    if (!host.projectTrusted) throw new WorkflowError('CONFIG_ERROR', `The project ${host.cwd} is not trusted: trust it in pi (/trust) before cleaning up its runs`, { cwd: host.cwd });
    const result = host.engine.deleteRuns(host.cwd, candidates);
    if (json) printJson(io, { dryRun: false, removed: result.deleted, skipped: result.skipped });
    else print(io, 'removed', result.deleted, result.skipped);
    return result.skipped.some((skip) => skip.reason === 'failed') ? EXIT_FAILED : EXIT_OK;
  });
}

export const cleanupCommand: CommandSpec = {
  name: 'doctor cleanup',
  usage: ['wfcli doctor cleanup [--older-than-days <days>] [--yes] [--json]'],
  help: `  --older-than-days <days>   only runs that ended at least this many days ago (default: any age)
  --yes                      remove them; without it nothing is removed (dry run)
  --json                     print {dryRun, remove, skip} or {dryRun, removed, skipped}

Candidates are the completed, failed and stopped runs of this project, every
session. A run that a surviving run needs (its retry parent) is skipped and
reported, as is one that changed state or is executing when it is removed.
Removing deletes the run directory (script, journal, snapshot, result,
evidence, system prompts); Pi's own session files stay. Exit 1 when a removal
failed.`,
  options: { 'older-than-days': { type: 'string' }, yes: { type: 'boolean' }, ...JSON_OPTION },
  run,
};
