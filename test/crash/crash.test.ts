/**
 * Crash test (issue 3): a workflow runs in a child host process that is
 * SIGKILLed at seeded pseudo-random points and resumed by a fresh process
 * (recoverInterrupted + resume), a few kill rounds per seed, until it
 * completes. Then:
 *
 * - the result equals the one of a clean, uninterrupted reference run;
 * - no shell command journaled as completed ever ran again (every shell
 *   appends its tag to ledger.txt in the cwd; a tag journaled when a host
 *   was killed gains no ledger line afterwards);
 * - no run directory is ever left unreadable (snapshot.json parses and is a
 *   valid snapshot, the journal loads and every record has a known shape).
 *
 * A shell that ran but was not journaled when its host died may run again;
 * the test counts those as "allowed reruns" and prints them.
 *
 * The seed picks the kill plan (how many rounds, time- or journal-based, the
 * delay or target); the timing itself is real, so a failure message names
 * the seed, every round's plan and the journal size at each kill, and keeps
 * the seed's directory for inspection.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal, readSnapshot, listRuns, LOCK_FILE, JOURNAL_FILE, RESULT_FILE } from '../../kernel/store/index.js';
import { parseSnapshot } from '../../kernel/engine/snapshot.js';
import { parseJournalRecord, type JournalRecord } from '../../kernel/engine/journal-record.js';
import type { ChildConfig } from './child.js';
import { collectStderr, journalLines, ledger, mulberry32, readHostReports, TS_HOST_ARGV, type HostError, type Outcome } from './shared.js';

/** CRASH_SEED=<n> reruns one seed (to reproduce a failure); CRASH_SEEDS=<count> changes how many run (default 20). */
const SEEDS = process.env['CRASH_SEED']
  ? [Number(process.env['CRASH_SEED'])]
  : Array.from({ length: Number(process.env['CRASH_SEEDS'] ?? 20) }, (_, index) => 1000 + index * 7919);
const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));
const CHILD_TIMEOUT_MS = 30_000;
const SESSION = 'crash';

/**
 * ~30 journaled operations: shells (each appends a unique tag to ledger.txt
 * and prints it), agents (echo transport), a log, parallel branches, a
 * registered function with its own shell and agent, and evidence.
 */
const SCRIPT = `
phase('prepare');
const s = [];
s.push((await shell('echo s0 >> ledger.txt; echo s0')).stdout);
const plan = await agent('plan the work', { label: 'planner' });
log('planned');
for (let i = 1; i <= 4; i++) s.push((await shell(\`echo s\${i} >> ledger.txt; echo s\${i}\`)).stdout);
phase('fan-out');
const fan = await parallel('fan', {
  left: async () => {
    const x = await shell('echo left-1 >> ledger.txt; echo left-1');
    const y = await agent('left ' + x.stdout);
    const z = await shell('echo left-2 >> ledger.txt; echo left-2');
    return [x.stdout, y, z.stdout];
  },
  right: async () => {
    const x = await agent('right');
    const y = await shell('echo right-1 >> ledger.txt; echo right-1');
    return [x, y.stdout];
  },
  mid: () => tally({ tag: 'fn-mid', n: 3 }),
});
const ev = await evidence({ steps: s, fan });
const t1 = await tally({ tag: 'fn-1', n: 1 });
phase('finish');
const checks = [];
for (let i = 5; i < 10; i++) {
  s.push((await shell(\`echo s\${i} >> ledger.txt; echo s\${i}\`)).stdout);
  if (i % 2 === 1) checks.push(await agent(\`check \${i}\`));
}
const distinct = await shell('echo s-final >> ledger.txt; echo s-final; sort -u ledger.txt | wc -l | tr -d " "');
return { s, plan, fan, ev: { ref: ev.ref, bytes: ev.bytes }, t1, checks, distinct: distinct.stdout.split('\\n')[1] };
`;

// ---- one host process --------------------------------------------------------

type KillPlan =
  /** SIGKILL `fraction` × the reference run's duration after the child reports RUN. */
  | { readonly mode: 'time'; readonly fraction: number }
  /** SIGKILL once the journal grew by `fraction` of what is left (at least one record), plus `jitterMs`. */
  | { readonly mode: 'journal'; readonly fraction: number; readonly jitterMs: number };

interface ChildResult {
  readonly runId?: string;
  readonly runDir?: string;
  readonly outcome?: Outcome;
  readonly error?: HostError;
  readonly killed: boolean;
  /** Journal lines when the kill was sent (journal mode: the target it reached). */
  readonly killAt?: string;
  readonly exit: { code: number | null; signal: NodeJS.Signals | null };
  readonly stderr: string;
  readonly runMs?: number;
}

interface Reference {
  readonly value: unknown;
  readonly runMs: number;
  readonly lines: number;
  readonly keys: readonly string[];
  readonly ledger: ReadonlyMap<string, number>;
}

let reference: Reference;

function runChild(config: ChildConfig, plan: KillPlan | undefined): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TS_HOST_ARGV, CHILD, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const stderr = collectStderr(child.stderr);
    let runId: string | undefined;
    let runDir: string | undefined;
    let runAt = 0;
    let runMs: number | undefined;
    let outcome: Outcome | undefined;
    let error: HostError | undefined;
    let killed = false;
    let killAt: string | undefined;
    const cleanups: (() => void)[] = [];
    const kill = (why: string) => {
      if (killed || child.exitCode !== null || child.signalCode !== null) return;
      killed = true;
      killAt = why;
      child.kill('SIGKILL');
      for (const cleanup of cleanups.splice(0)) cleanup();
    };
    const deadline = setTimeout(() => {
      kill('timeout');
      reject(new Error(`host process did not finish within ${CHILD_TIMEOUT_MS} ms; stderr:\n${stderr.text}`));
    }, CHILD_TIMEOUT_MS);

    const armKill = (dir: string) => {
      if (!plan) return;
      if (plan.mode === 'time') {
        const delay = Math.round(plan.fraction * reference.runMs);
        const timer = setTimeout(() => kill(`${delay}ms after RUN, journal ${journalLines(dir)} lines`), delay);
        cleanups.push(() => clearTimeout(timer));
        return;
      }
      const start = journalLines(dir);
      const target = start + Math.max(1, Math.ceil(plan.fraction * Math.max(0, reference.lines - start)));
      let fired = false;
      const check = () => {
        if (fired) return;
        const lines = journalLines(dir);
        if (lines < target) return;
        fired = true;
        const fire = () => kill(`journal ${lines}/${target} lines (+${plan.jitterMs}ms: ${journalLines(dir)})`);
        if (plan.jitterMs === 0) fire();
        else {
          const timer = setTimeout(fire, plan.jitterMs);
          cleanups.push(() => clearTimeout(timer));
        }
      };
      const watcher = watch(join(dir, JOURNAL_FILE), check);
      watcher.on('error', () => undefined);
      const poll = setInterval(check, 2);
      cleanups.push(() => watcher.close(), () => clearInterval(poll));
      check();
    };

    readHostReports(child.stdout, {
      onRun(id, dir) {
        [runId, runDir] = [id, dir];
        runAt = performance.now();
        armKill(runDir!);
      },
      onOutcome(reported) {
        runMs = performance.now() - runAt;
        outcome = reported;
      },
      onError(reported) {
        error = reported;
      },
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(deadline);
      for (const cleanup of cleanups.splice(0)) cleanup();
      resolve({
        ...(runId === undefined ? {} : { runId }),
        ...(runDir === undefined ? {} : { runDir }),
        ...(outcome === undefined ? {} : { outcome }),
        ...(error === undefined ? {} : { error }),
        killed: killed && outcome === undefined,
        ...(killAt === undefined ? {} : { killAt }),
        exit: { code, signal },
        stderr: stderr.text,
        ...(runMs === undefined ? {} : { runMs }),
      });
    });
  });
}

// ---- what is on disk ---------------------------------------------------------

interface DiskState {
  readonly state: string;
  readonly records: readonly JournalRecord[];
  /** Tags of the shells journaled as completed (each shell prints its tag first). */
  readonly shellTags: ReadonlySet<string>;
  readonly tornBytes: number;
  readonly tempFiles: readonly string[];
}

/** Reads the run directory the way a new host would, throwing a precise message when it cannot. */
function inspectRun(root: string, cwd: string, runDir: string): DiskState {
  const broken = listRuns(root, cwd, SESSION).filter((entry) => entry.error);
  if (broken.length > 0) throw new Error(`unreadable run directories: ${broken.map((entry) => entry.runDir).join(', ')}`);
  let snapshotText: string;
  try {
    snapshotText = readFileSync(join(runDir, 'snapshot.json'), 'utf8');
    JSON.parse(snapshotText);
  } catch (error) {
    throw new Error(`snapshot.json does not parse: ${(error as Error).message}`);
  }
  const snapshot = parseSnapshot(readSnapshot(runDir), runDir);
  const raw = readJournal(runDir);
  const records = raw.map((record, index) => parseJournalRecord(record, index));
  const data = readFileSync(join(runDir, JOURNAL_FILE));
  const tornBytes = data.byteLength - (data.lastIndexOf(0x0a) + 1);
  const shellTags = new Set<string>();
  for (const record of records) {
    if (record.kind === 'shell') shellTags.add(record.value.stdout.split('\n')[0]!);
  }
  const tempFiles = readdirSync(runDir).filter((name) => name.startsWith('.'));
  return { state: snapshot.state, records, shellTags, tornBytes, tempFiles };
}

function fresh(prefix: string): { dir: string; config: Omit<ChildConfig, 'runId'> } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const cwd = join(dir, 'cwd');
  mkdirSync(cwd);
  return { dir, config: { root: join(dir, 'root'), agentDir: join(dir, 'agent'), home: dir, cwd, script: SCRIPT } };
}

const stats = { rounds: 0, kills: 0, allowedReruns: 0, tornTails: 0, tempFiles: new Set<string>(), killedAfterCompletion: 0, staleLocks: 0 };
const dirs: string[] = [];

beforeAll(async () => {
  const { dir, config } = fresh('wf-crash-ref-');
  dirs.push(dir);
  const result = await runChild(config, undefined);
  if (result.outcome?.state !== 'completed') {
    throw new Error(`the reference run did not complete: ${JSON.stringify(result.outcome ?? result.error)}\n${result.stderr}`);
  }
  const disk = inspectRun(config.root, config.cwd, result.runDir!);
  const counts = ledger(config.cwd);
  for (const [tag, count] of counts) if (count !== 1) throw new Error(`reference run: ${tag} ran ${count} times`);
  reference = { value: result.outcome.value, runMs: result.runMs ?? 300, lines: disk.records.length, keys: disk.records.map((record) => record.key).sort(), ledger: counts };
});

afterAll(() => {
  console.log(`crash test: ${SEEDS.length} seeds, ${stats.rounds} host processes, ${stats.kills} SIGKILLs, ` +
    `${stats.allowedReruns} allowed reruns of unjournaled shells, ${stats.tornTails} torn journal tails, ` +
    `leftover temp files ${JSON.stringify([...stats.tempFiles])}, ${stats.killedAfterCompletion} kills after completion was persisted (${stats.staleLocks} stale run.lock left); ` +
    `reference run ${Math.round(reference?.runMs ?? 0)} ms, ${reference?.lines ?? 0} journal records`);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.concurrent('SIGKILLed host processes resume to the uninterrupted result', () => {
  it.each(SEEDS)('seed %i', async (seed) => {
    const random = mulberry32(seed);
    const killRounds = 1 + Math.floor(random() * 3);
    const plans: KillPlan[] = Array.from({ length: killRounds }, () =>
      random() < 0.5
        ? { mode: 'time', fraction: Math.round(random() * 1100) / 1000 }
        : { mode: 'journal', fraction: Math.round(random() * 1000) / 1000, jitterMs: Math.floor(random() * 8) },
    );
    const { dir, config } = fresh(`wf-crash-${seed}-`);
    const history: string[] = [];
    const fail = (message: string): never => {
      throw new Error(`seed ${seed}: ${message}\nrounds:\n  ${history.join('\n  ')}\nkept for inspection: ${dir}`);
    };
    let runId: string | undefined;
    let runDir: string | undefined;
    let finalValue: unknown;
    let completed = false;
    let cleanExit = false;
    // Tag → ledger count when it was first seen journaled after a kill: it must never grow.
    const frozen = new Map<string, { count: number; round: number }>();

    for (let round = 0; round <= killRounds && !completed; round += 1) {
      const plan = plans[round];
      const result = await runChild(runId === undefined ? config : { ...config, runId }, plan);
      stats.rounds += 1;
      const label = `round ${round} (${runId === undefined ? 'launch' : 'resume'}, ${plan ? JSON.stringify(plan) : 'no kill'})`;
      if (result.error) fail(`${label}: the host failed: ${result.error.code}: ${result.error.message}\n${result.stderr}`);
      if (!result.runId && !result.killed) fail(`${label}: the host exited (${JSON.stringify(result.exit)}) without reporting a run\n${result.stderr}`);
      runId ??= result.runId;
      runDir ??= result.runDir;
      if (result.runId !== runId) fail(`${label}: resumed ${result.runId}, expected ${runId}`);

      let disk: DiskState;
      try {
        disk = inspectRun(config.root, config.cwd, runDir!);
      } catch (error) {
        history.push(`${label}: killed at ${result.killAt ?? '-'}`);
        return fail(`${label}: the run directory is unreadable: ${(error as Error).message}`);
      }
      if (disk.tornBytes > 0) stats.tornTails += 1;
      for (const name of disk.tempFiles) stats.tempFiles.add(name.replace(/\.[0-9a-z]{6,}\.tmp$/, '.*.tmp'));
      const counts = ledger(config.cwd);
      history.push(`${label}: ${result.killed ? `killed at ${result.killAt}` : `exit ${JSON.stringify(result.exit)}`}; state ${disk.state}, ${disk.records.length} records${disk.tornBytes ? ` + ${disk.tornBytes} torn bytes` : ''}`);

      for (const [tag, seen] of frozen) {
        if ((counts.get(tag) ?? 0) !== seen.count) {
          fail(`shell "${tag}" was journaled as completed before round ${seen.round + 1} with ${seen.count} ledger line(s), but now has ${counts.get(tag) ?? 0}: it ran again after being journaled`);
        }
      }
      for (const tag of disk.shellTags) {
        if ((counts.get(tag) ?? 0) < 1) fail(`shell "${tag}" is journaled but never appended to the ledger`);
        if (!frozen.has(tag)) frozen.set(tag, { count: counts.get(tag)!, round });
      }

      if (result.outcome) {
        if (result.outcome.state !== 'completed') fail(`${label}: the run ended ${result.outcome.state}: ${JSON.stringify(result.outcome.error)}`);
        finalValue = result.outcome.value;
        completed = true;
        cleanExit = result.exit.code === 0;
      } else if (disk.state === 'completed') {
        // Killed after the completion was persisted but before it was reported: nothing left to resume.
        stats.killedAfterCompletion += 1;
        finalValue = JSON.parse(readFileSync(join(runDir!, RESULT_FILE), 'utf8'));
        completed = true;
      } else if (result.killed) {
        stats.kills += 1;
      } else {
        fail(`${label}: the host exited (${JSON.stringify(result.exit)}) without an outcome\n${result.stderr}`);
      }
    }
    if (!completed) fail('the run did not complete after the last, unkilled round');

    const disk = inspectRun(config.root, config.cwd, runDir!);
    if (disk.state !== 'completed') fail(`the final snapshot state is ${disk.state}`);
    // A host killed between persisting the completion and releasing the lock leaves a stale lock (a dead pid),
    // which any later acquirer takes over; a host that exited normally must not leave one.
    if (existsSync(join(runDir!, LOCK_FILE))) {
      if (cleanExit) fail('run.lock is left behind by a host that completed the run and exited normally');
      stats.staleLocks += 1;
    }
    try {
      expect(finalValue).toEqual(reference.value);
      expect(JSON.parse(readFileSync(join(runDir!, RESULT_FILE), 'utf8'))).toEqual(reference.value);
    } catch (error) {
      fail(`the result differs from the uninterrupted run: ${(error as Error).message}`);
    }
    const keys = disk.records.map((record) => record.key);
    const duplicate = keys.find((key, index) => keys.indexOf(key) !== index);
    if (duplicate) fail(`journal key ${duplicate} was journaled twice (the operation was performed again after completing)`);
    if (JSON.stringify([...keys].sort()) !== JSON.stringify(reference.keys)) {
      fail(`the journal keys differ from the reference run's:\n  got ${JSON.stringify([...keys].sort())}\n  want ${JSON.stringify(reference.keys)}`);
    }
    const counts = ledger(config.cwd);
    for (const tag of reference.ledger.keys()) {
      const count = counts.get(tag) ?? 0;
      if (count < 1) fail(`shell "${tag}" never ran`);
      stats.allowedReruns += count - 1;
    }
    for (const tag of counts.keys()) if (!reference.ledger.has(tag)) fail(`unexpected ledger line "${tag}"`);
    dirs.push(dir);
  });
});
