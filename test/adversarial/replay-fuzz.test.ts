/**
 * The replay fuzzer (issue 10): random workflows (fuzz-script.ts) run in a
 * host process (fuzz-host.ts) that is SIGKILLed at seeded random points and
 * resumed by a fresh process until the run ends. For every seed:
 *
 * - the outcome equals the one of an uninterrupted run of the same script
 *   (value, or error code and reason), or the resume failed with the typed
 *   non-determinism error (RESUME_INCOMPATIBLE, nondeterministic_replay);
 * - no journaled operation ran twice: every shell appends a tag unique to
 *   that execution of it to ledger.txt, and a tag journaled when a host was
 *   killed never gains a ledger line afterwards;
 * - nothing ran that the uninterrupted run does not run.
 *
 * REPLAY_FUZZ_SEEDS=<count> sets how many seeds run (default 2; `npm test`
 * and `npm run test:replay-fuzz` run 200); REPLAY_FUZZ_SEED=<n> reruns one.
 * A failure names the seed, its script and every round. The hosts run the
 * built package: `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, it } from 'vitest';
import { readJournal } from '../../kernel/store/index.js';
import { parseJournalRecord } from '../../kernel/engine/journal-record.js';
import { collectStderr, journalLines, ledger, mulberry32, readHostReports, TS_HOST_ARGV, type HostError, type Outcome } from '../crash/shared.js';
import type { FuzzHostConfig } from './fuzz-host.js';
import { fuzzScript } from './fuzz-script.js';

const SEEDS = process.env['REPLAY_FUZZ_SEED']
  ? [Number(process.env['REPLAY_FUZZ_SEED'])]
  : Array.from({ length: Number(process.env['REPLAY_FUZZ_SEEDS'] ?? 2) }, (_, index) => 7000 + index * 104_729);
const HOST = fileURLToPath(new URL('./fuzz-host.ts', import.meta.url));
const HOST_TIMEOUT_MS = 60_000;

interface HostResult {
  readonly runId?: string;
  readonly runDir?: string;
  readonly outcome?: Outcome & { readonly error?: { code: string; message: string; details?: Record<string, unknown> } };
  readonly error?: HostError;
  readonly killed: boolean;
  readonly killAt?: string;
  readonly ms: number;
  readonly stderr: string;
}

/** Runs one host process; `killAfter` (ms after RUN, or a journal line count) SIGKILLs it. */
function runHost(config: FuzzHostConfig, kill?: { readonly afterMs: number } | { readonly atLines: number }): Promise<HostResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TS_HOST_ARGV, HOST, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const stderr = collectStderr(child.stderr);
    const started = performance.now();
    let runId: string | undefined;
    let runDir: string | undefined;
    let outcome: HostResult['outcome'];
    let error: HostError | undefined;
    let killed = false;
    let killAt: string | undefined;
    const timers: NodeJS.Timeout[] = [];
    const killNow = (why: string) => {
      if (killed || child.exitCode !== null || child.signalCode !== null) return;
      killed = true;
      killAt = why;
      child.kill('SIGKILL');
    };
    timers.push(setTimeout(() => killNow('timeout'), HOST_TIMEOUT_MS));
    readHostReports(child.stdout, {
      onRun(id, dir) {
        [runId, runDir] = [id, dir];
        if (kill && 'afterMs' in kill) timers.push(setTimeout(() => killNow(`${kill.afterMs}ms after RUN`), kill.afterMs));
        if (kill && 'atLines' in kill) {
          const poll = setInterval(() => {
            const lines = journalLines(dir!);
            if (lines >= kill.atLines) killNow(`journal at ${lines} lines`);
          }, 2);
          timers.push(poll);
        }
      },
      onOutcome: (reported) => (outcome = reported),
      onError: (reported) => (error = reported),
    });
    child.on('error', reject);
    child.on('close', () => {
      for (const timer of timers) clearTimeout(timer);
      if (killAt === 'timeout') return reject(new Error(`host process hung; stderr:\n${stderr.text}`));
      resolve({
        ...(runId === undefined ? {} : { runId }),
        ...(runDir === undefined ? {} : { runDir }),
        ...(outcome === undefined ? {} : { outcome }),
        ...(error === undefined ? {} : { error }),
        killed: killed && outcome === undefined,
        ...(killAt === undefined ? {} : { killAt }),
        ms: performance.now() - started,
        stderr: stderr.text,
      });
    });
  });
}

/** Tags of the shells journaled as completed (each prints its tag first), also inside functions. */
function journaledTags(runDir: string): Set<string> {
  const tags = new Set<string>();
  for (const [index, raw] of readJournal(runDir).entries()) {
    const record = parseJournalRecord(raw, index);
    if (record.kind === 'shell') tags.add(record.value.stdout.split('\n')[0]!);
  }
  return tags;
}

function fresh(prefix: string, script: string): { dir: string; config: FuzzHostConfig } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const cwd = join(dir, 'cwd');
  mkdirSync(cwd);
  return { dir, config: { root: join(dir, 'root'), agentDir: join(dir, 'agent'), home: dir, cwd, script } };
}

const TERMINAL = new Set(['completed', 'failed', 'stopped']);

function readSnapshotFile(runDir: string): { state: string; failure?: { code: string; details?: { reason?: string } } } {
  return JSON.parse(readFileSync(join(runDir, 'snapshot.json'), 'utf8')) as { state: string; failure?: { code: string; details?: { reason?: string } } };
}

function storedState(runDir: string): string {
  return readSnapshotFile(runDir).state;
}

/** What must match between the uninterrupted run and the resumed one. */
function summary(outcome: HostResult['outcome']): unknown {
  if (outcome === undefined) return undefined;
  if (outcome.state === 'completed') return { state: outcome.state, value: outcome.value };
  return { state: outcome.state, code: outcome.error?.code, reason: (outcome.error as { details?: { reason?: unknown } } | undefined)?.details?.reason };
}

const stats = { seeds: 0, racingSeeds: 0, hosts: 0, kills: 0, killedAfterEnd: 0, equal: 0, nondeterministic: 0, wrong: 0, journaledReruns: 0, allowedReruns: 0, failedOutcomes: 0 };
const dirs: string[] = [];

afterAll(() => {
  console.log(
    `replay fuzz: ${stats.seeds} seeds (${stats.racingSeeds} with a forbidden race), ${stats.hosts} host processes, ${stats.kills} SIGKILLs (and ${stats.killedAfterEnd} after the run's end was persisted); ` +
      `${stats.equal} outcomes equal to the uninterrupted run (${stats.failedOutcomes} of them typed failures), ${stats.nondeterministic} typed non-determinism errors, ` +
      `${stats.wrong} wrong values, ${stats.journaledReruns} journaled operations run again, ${stats.allowedReruns} reruns of unjournaled shells`,
  );
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.concurrent('replay fuzzer: SIGKILLed and resumed runs end like uninterrupted ones', () => {
  it.each(SEEDS)('seed %i', { timeout: 300_000 }, async (seed) => {
    const { script, racing } = fuzzScript(seed);
    const random = mulberry32(seed ^ 0x5eed);
    const history: string[] = [];
    const reference = fresh(`wf-fuzz-ref-${seed}-`, script);
    const { dir, config } = fresh(`wf-fuzz-${seed}-`, script);
    const fail = (message: string): never => {
      throw new Error(`seed ${seed}: ${message}\nrounds:\n  ${history.join('\n  ')}\nscript:\n${script}\nkept for inspection: ${dir}`);
    };
    const clean = await runHost(reference.config);
    stats.hosts += 1;
    if (!clean.outcome) fail(`the uninterrupted run did not end: ${JSON.stringify(clean.error)}\n${clean.stderr}`);
    const expected = summary(clean.outcome);
    const referenceLedger = ledger(reference.config.cwd);
    for (const [tag, count] of referenceLedger) if (count !== 1) fail(`the uninterrupted run ran ${tag} ${count} times`);

    const rounds = 1 + Math.floor(random() * 3);
    let runId: string | undefined;
    let runDir: string | undefined;
    let final: HostResult['outcome'];
    const frozen = new Map<string, number>();
    for (let round = 0; round <= rounds && final === undefined; round += 1) {
      const kill = round === rounds ? undefined : random() < 0.6 ? { afterMs: Math.round(random() * clean.ms * 0.9) } : { atLines: (runDir ? journalLines(runDir) : 0) + 1 + Math.floor(random() * 6) };
      const result = await runHost(runId === undefined ? config : { ...config, runId }, kill);
      stats.hosts += 1;
      history.push(`round ${round} (${runId === undefined ? 'launch' : 'resume'}, ${JSON.stringify(kill ?? 'no kill')}): ${result.killed ? `killed at ${result.killAt}` : JSON.stringify(summary(result.outcome) ?? result.error)}`);
      if (result.error) fail(`round ${round}: the host failed: ${result.error.code}: ${result.error.message}\n${result.stderr}`);
      runId ??= result.runId;
      runDir ??= result.runDir;
      if (runDir) {
        const counts = ledger(config.cwd);
        for (const [tag, seen] of frozen) {
          if ((counts.get(tag) ?? 0) !== seen) {
            stats.journaledReruns += 1;
            fail(`shell "${tag}" was journaled with ${seen} ledger line(s) but now has ${counts.get(tag) ?? 0}: a journaled operation ran again`);
          }
        }
        for (const tag of journaledTags(runDir)) if (!frozen.has(tag)) frozen.set(tag, counts.get(tag) ?? 0);
      }
      if (result.outcome) final = result.outcome;
      else if (!result.killed) fail(`round ${round}: the host exited without an outcome\n${result.stderr}`);
      else if (runDir && TERMINAL.has(storedState(runDir))) {
        // Killed after the run's end was persisted but before it was reported: nothing is left to resume.
        stats.killedAfterEnd += 1;
        break;
      } else stats.kills += 1;
    }
    if (final === undefined) {
      // Killed after the run ended: its outcome is on disk.
      const snapshot = readSnapshotFile(runDir!);
      final =
        snapshot.state === 'completed'
          ? { runId: runId!, state: 'completed', value: JSON.parse(readFileSync(join(runDir!, 'result.json'), 'utf8')) as unknown }
          : // As a host's OUTCOME line reports it: a segment's outcome error carries no details (the snapshot's failure does).
            { runId: runId!, state: snapshot.state, error: { code: snapshot.failure?.code ?? '', message: '' } };
    }
    stats.seeds += 1;
    if (racing) stats.racingSeeds += 1;
    const got = summary(final);
    if (JSON.stringify(got) === JSON.stringify(expected)) {
      stats.equal += 1;
      if (final.state !== 'completed') stats.failedOutcomes += 1;
    } else if (final.state === 'failed' && final.error?.code === 'RESUME_INCOMPATIBLE' && (final.error as { details?: { reason?: unknown } }).details?.reason === 'nondeterministic_replay') {
      stats.nondeterministic += 1;
    } else {
      stats.wrong += 1;
      fail(`the outcome differs from the uninterrupted run:\n  got  ${JSON.stringify(got)}\n  want ${JSON.stringify(expected)}`);
    }
    const counts = ledger(config.cwd);
    // A run that fails stops where timing lets it; one that completes runs exactly what the uninterrupted run runs.
    if (final.state === 'completed') {
      for (const tag of counts.keys()) if (!referenceLedger.has(tag)) fail(`shell "${tag}" ran, but the uninterrupted run never runs it`);
      for (const tag of referenceLedger.keys()) if (!counts.has(tag)) fail(`shell "${tag}" never ran`);
    }
    for (const count of counts.values()) stats.allowedReruns += count - 1;
    dirs.push(dir, reference.dir);
  });
});
