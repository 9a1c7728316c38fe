/**
 * Issue 25 items 3 and 4: the store never follows a link out of itself and
 * never blocks. In place of each file and folder of a run, and of a session's
 * `runs/` folder, the test plants a link to a file outside the store, a link
 * to a directory outside it (a copy of a whole run, so following it would
 * "work"), a link to /dev/zero and a FIFO; then runs the real `wfcli`:
 * `list`, `inspect`, `status`, `resume` (also of interrupted runs whose
 * journal, logs or folders are links), `retry`, `doctor cleanup` (dry and
 * `--yes`) and deletion through the engine, each as a process of its own
 * with a time-out that fails the test. Nothing outside the store changes
 * (digests), nothing hangs, every damaged run is reported with a typed error
 * naming the entry, and undamaged runs keep working.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runsDirectory } from '../../kernel/store/index.js';
import { REPO, cloneRun, digestTree, inBatches, makeEnv, removeEnv, requireBuiltCli, storeEngine, wfcli, type StoreEnv } from './support.js';

const SESSION = 'hostile';
const KINDS = ['file-link', 'dir-link', 'dev-zero', 'fifo'] as const;
type Kind = (typeof KINDS)[number];

const PROMPT_SHA = 'a'.repeat(64);
/** Each file and folder of a run (`.` is the run directory itself); `<evidence>` is the stored evidence file. */
const ENTRIES = [
  'workflow.js',
  'snapshot.json',
  'journal.jsonl',
  'calls.jsonl',
  'events.jsonl',
  'result.json',
  'run.lock',
  'system-prompts.json',
  'evidence',
  '.system-prompts',
  'evidence/<evidence>',
  `.system-prompts/${PROMPT_SHA}.txt`,
  '.',
] as const;
const COMMANDS = ['status', 'resume', 'retry'] as const;
/**
 * Resumable (interrupted) runs with a link where a resume writes: the journal it appends to, the logs, the
 * evidence and system-prompt folders and index. Each must be refused before anything is written through it.
 */
const RESUMABLE: readonly { readonly entry: string; readonly kind: Kind }[] = [
  { entry: 'journal.jsonl', kind: 'file-link' },
  { entry: 'evidence', kind: 'dir-link' },
  { entry: '.system-prompts', kind: 'dir-link' },
  { entry: 'system-prompts.json', kind: 'file-link' },
  { entry: 'calls.jsonl', kind: 'file-link' },
  { entry: 'events.jsonl', kind: 'dev-zero' },
];

let env: StoreEnv;
let outside: string;
let outsideDigest: string;
let evidenceName: string;
/** Damaged run ID → what was planted where. */
const damaged = new Map<string, { entry: string; kind: Kind }>();
/** Damaged interrupted run ID → what was planted where. */
const resumable = new Map<string, { entry: string; kind: Kind }>();
const controls = { completed: 'wf-control-completed', failed: 'wf-control-failed', interrupted: 'wf-control-interrupted' };

function plant(target: string, kind: Kind): void {
  rmSync(target, { recursive: true, force: true });
  if (kind === 'file-link') symlinkSync(join(outside, 'target.txt'), target);
  else if (kind === 'dir-link') symlinkSync(join(outside, 'target-run'), target);
  else if (kind === 'dev-zero') symlinkSync('/dev/zero', target);
  else execFileSync('mkfifo', [target]);
}

/** What a typed report about this plant says: the code, the entry's path and what was found there. */
function expectDamageReport(text: string, runDir: string, entry: string, kind: Kind): void {
  const where = entry === '.' ? runDir : join(runDir, entry.replace('<evidence>', evidenceName));
  expect(text).toContain('RUN_NOT_FOUND');
  expect(text).toContain(where);
  expect(text).toMatch(kind === 'fifo' ? /is a FIFO/ : /is a symbolic link/);
}

/** A listing's stderr names every damaged run and every bad runs/ folder with a typed warning. */
function expectEveryDamageReported(stderr: string): void {
  for (const [runId, { entry, kind }] of [...damaged, ...resumable]) {
    const line = stderr.split('\n').find((text) => text.includes(`/${runId}`)) ?? '';
    expectDamageReport(line, join(runsDirectory(env.root, env.cwd, SESSION), runId), entry, kind);
  }
  for (let k = 0; k < KINDS.length; k += 1) expect(stderr).toContain(`RUN_NOT_FOUND: ${runsDirectory(env.root, env.cwd, `linked-${k}`)} is a`);
}

beforeAll(async () => {
  requireBuiltCli();
  env = makeEnv('wf-hostile-');
  outside = join(env.dir, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'target.txt'), 'a file outside the store\n');

  // The runs everything is made from: a completed run with evidence, logs and system prompts; a failed one.
  const engine = storeEngine(env, SESSION);
  try {
    const base = await engine.launch({ name: 'hostile', cwd: env.cwd, script: `await shell('echo one'); const e = await evidence('evidence text'); log('a log line'); return { sha: e.sha256 };` });
    const outcome = await base.outcome;
    expect(outcome.state).toBe('completed');
    evidenceName = `${(outcome.value as { sha: string }).sha}.txt`;
    mkdirSync(join(base.runDir, '.system-prompts'), { mode: 0o700 });
    writeFileSync(join(base.runDir, '.system-prompts', `${PROMPT_SHA}.txt`), 'a system prompt', { mode: 0o600 });
    writeFileSync(join(base.runDir, 'system-prompts.json'), `${JSON.stringify({ version: 2 })}\n${JSON.stringify({ agentId: 'a1', nativeSessionId: null, attempt: 1, turn: 1, sha256: PROMPT_SHA, at: new Date().toISOString() })}\n`, { mode: 0o600 });
    const failed = await engine.launch({ name: 'hostile-failed', cwd: env.cwd, script: `await shell('echo f'); throw new Error('planned failure');` });
    expect((await failed.outcome).state).toBe('failed');
    cloneRun(env, SESSION, base.runId, controls.completed);
    cloneRun(env, SESSION, failed.runId, controls.failed);
    const interrupted = cloneRun(env, SESSION, base.runId, controls.interrupted);
    const snapshot = JSON.parse(readFileSync(join(interrupted, 'snapshot.json'), 'utf8')) as Record<string, unknown>;
    delete snapshot['result'];
    delete snapshot['terminalAt'];
    writeFileSync(join(interrupted, 'snapshot.json'), JSON.stringify({ ...snapshot, state: 'interrupted' }));
    rmSync(join(interrupted, 'result.json'));
    RESUMABLE.forEach(({ entry, kind }, e) => {
      const runId = `wf-resumable-${e}`;
      plant(join(cloneRun(env, SESSION, controls.interrupted, runId), entry), kind);
      resumable.set(runId, { entry, kind });
    });
    // Outside the store: a whole run to be linked to, and a folder that looks like a session's runs/.
    cpSync(base.runDir, join(outside, 'target-run'), { recursive: true });
    cpSync(base.runDir, join(outside, 'target-runs', 'wf-outside-run'), { recursive: true });
    mkdirSync(join(outside, 'target-runs', '.trash-wf-outside-9'), { recursive: true });
    writeFileSync(join(outside, 'target-runs', '.trash-wf-outside-9', 'keep.txt'), 'keep');

    ENTRIES.forEach((entry, e) => {
      KINDS.forEach((kind, k) => {
        const runId = `wf-damaged-${e}-${k}`;
        const runDir = cloneRun(env, SESSION, base.runId, runId);
        plant(entry === '.' ? runDir : join(runDir, entry.replace('<evidence>', evidenceName)), kind);
        damaged.set(runId, { entry, kind });
      });
    });
    // A session whose runs/ folder is a link (to a folder of runs outside), /dev/zero or a FIFO.
    KINDS.forEach((kind, k) => {
      const runs = runsDirectory(env.root, env.cwd, `linked-${k}`);
      mkdirSync(join(runs, '..'), { recursive: true });
      if (kind === 'dir-link') symlinkSync(join(outside, 'target-runs'), runs);
      else plant(runs, kind);
    });
    // A link where the store keeps no file of its own is removed with its run, never followed.
    symlinkSync(join(outside, 'target-run'), join(cloneRun(env, SESSION, base.runId, 'wf-with-foreign-link'), 'worktrees'));
  } finally {
    await engine.close();
  }
  outsideDigest = digestTree(outside);
}, 120_000);

afterAll(() => {
  if (env) removeEnv(env);
});

describe('a store with links and FIFOs planted in its runs', () => {
  it('list and inspect end, report every damaged run with a typed error naming the entry, and list the others', async () => {
    const [list, inspect] = await Promise.all([wfcli(env, ['list', '--json']), wfcli(env, ['inspect', '--json'])]);
    for (const result of [list, inspect]) {
      expect(result.code, result.stderr).toBe(0);
      const shown = (JSON.parse(result.stdout) as { runId?: string; run?: { runId: string } }[]).map((entry) => entry.runId ?? entry.run?.runId);
      expect(shown).toEqual(expect.arrayContaining(Object.values(controls)));
      expect(shown.filter((runId) => runId?.startsWith('wf-damaged-') || runId?.startsWith('wf-resumable-'))).toEqual([]);
      expectEveryDamageReported(result.stderr);
      expect(result.stdout + result.stderr).not.toContain('wf-outside-run');
    }
    expect(digestTree(outside)).toBe(outsideDigest);
  }, 180_000);

  it('status, resume and retry of a damaged run end at once with RUN_NOT_FOUND naming the entry; undamaged runs still work', async () => {
    const runs = runsDirectory(env.root, env.cwd, SESSION);
    // One process per entry (each wfcli start costs a second of CPU): the entries take the commands in turn, and
    // the first twelve meet every pairing of a command and a kind of plant once. list, inspect and cleanup above
    // and below meet every plant of every entry.
    const cases = ENTRIES.map((entry, e) => {
      const kind = KINDS[Math.floor(e / COMMANDS.length) % KINDS.length]!;
      return { runId: `wf-damaged-${e}-${KINDS.indexOf(kind)}`, entry, kind, command: COMMANDS[e % COMMANDS.length]! };
    });
    const results = await inBatches(
      cases.map((entry) => () => wfcli(env, [entry.command, entry.runId])),
      2,
    );
    cases.forEach((entry, index) => {
      const result = results[index]!;
      expect(result.code, `${entry.command} ${entry.runId} (${entry.kind} at ${entry.entry}): ${result.stderr}`).toBe(1);
      expectDamageReport(result.stderr, join(runs, entry.runId), entry.entry, entry.kind);
    });
    expect(new Set(cases.map((entry) => `${entry.command} ${entry.kind}`)).size).toBe(COMMANDS.length * KINDS.length);
    const [status, resume, retry] = await Promise.all([
      wfcli(env, ['status', controls.completed, '--json']),
      wfcli(env, ['resume', controls.interrupted]),
      wfcli(env, ['retry', controls.failed]),
    ]);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ runId: controls.completed, state: 'completed' });
    expect(resume.code, resume.stderr).toBe(0);
    expect(JSON.parse(resume.stdout)).toEqual({ sha: evidenceName.replace('.txt', '') });
    expect(retry.code).toBe(1);
    expect(retry.stderr).toContain('planned failure');
    expect(digestTree(outside)).toBe(outsideDigest);
  }, 300_000);

  it('resume of an interrupted run with a linked journal, log, evidence or prompt folder is refused before anything is written', async () => {
    const runs = runsDirectory(env.root, env.cwd, SESSION);
    const ids = [...resumable.keys()];
    const results = await inBatches(
      ids.map((runId) => () => wfcli(env, ['resume', runId])),
      2,
    );
    ids.forEach((runId, index) => {
      const { entry, kind } = resumable.get(runId)!;
      const result = results[index]!;
      expect(result.code, `resume ${runId} (${kind} at ${entry}): ${result.stderr}`).toBe(1);
      expectDamageReport(result.stderr, join(runs, runId), entry, kind);
      expect(result.stderr).not.toMatch(/^run wf-/m);
    });
    // The journal link's target keeps its last line and gains no record; nothing is created in the linked folders.
    expect(digestTree(outside)).toBe(outsideDigest);
  }, 180_000);

  it('doctor cleanup and deletion remove what they may, never through a link, and report the rest', async () => {
    const dry = await wfcli(env, ['doctor', 'cleanup', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect((JSON.parse(dry.stdout) as { remove: string[] }).remove).toContain('wf-with-foreign-link');
    const yes = await wfcli(env, ['doctor', 'cleanup', '--yes', '--json']);
    expect(yes.code, yes.stderr).toBe(0);
    // Both name every damaged run and linked runs/ folder in a typed warning, and go on with the others.
    for (const result of [dry, yes]) expectEveryDamageReported(result.stderr);
    const removed = (JSON.parse(yes.stdout) as { removed: string[] }).removed;
    expect(removed).toEqual(expect.arrayContaining([controls.completed, 'wf-with-foreign-link']));
    expect(removed.filter((runId) => runId.startsWith('wf-damaged-'))).toEqual([]);
    expect(digestTree(outside)).toBe(outsideDigest);

    // Deletion through the engine (the built one, in a process of its own): a damaged run goes (its links removed
    // themselves) or is refused as damaged when its directory or snapshot cannot be trusted.
    const ids = [...damaged.keys()];
    const program = `
      const { createKernel, WorkflowEngine } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'dist', 'kernel', 'index.js')).href)});
      const engine = new WorkflowEngine({ kernel: createKernel({ plugins: [] }), sessionId: ${JSON.stringify(SESSION)}, root: ${JSON.stringify(env.root)} });
      const out = {};
      for (const id of ${JSON.stringify(ids)}) {
        try { engine.deleteRun(${JSON.stringify(env.cwd)}, id); out[id] = 'deleted'; } catch (e) { out[id] = e.code + ':' + (e.details?.reason ?? '') + ':' + e.message; }
      }
      await engine.close();
      process.stdout.write(JSON.stringify(out));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8', timeout: 60_000 });
    expect(child.error).toBeUndefined();
    expect(child.status, child.stderr).toBe(0);
    const outcome = JSON.parse(child.stdout) as Record<string, string>;
    for (const [runId, { entry, kind }] of damaged) {
      const result = outcome[runId] ?? '';
      if (entry === '.' || entry === 'snapshot.json' || entry === 'run.lock') {
        expect(result.startsWith('RUN_NOT_FOUND:damaged:'), `${runId}: ${result}`).toBe(true);
        expectDamageReport(result, join(runsDirectory(env.root, env.cwd, SESSION), runId), entry, kind);
      } else expect(result, `${runId} (${kind} at ${entry})`).toBe('deleted');
    }
    expect(digestTree(outside)).toBe(outsideDigest);
  }, 180_000);
});
