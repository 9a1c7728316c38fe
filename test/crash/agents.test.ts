/**
 * Crash test for agents on the REAL Pi transport: a host process (agent-child.ts)
 * runs three sequential `agent(...)` calls through `createPiTransportPlugin`
 * with the faux provider and is SIGKILLed while the second agent's model
 * request is in flight (its frozen configuration persisted, its session
 * created, no answer yet). Between the two hosts the global settings file
 * retargets the alias `worker` from model A to model B. A fresh host then
 * resumes (recoverInterrupted + resume). Then:
 *
 * - the run completes with the three agents' values;
 * - the first agent (journaled) is not asked again: the faux provider's
 *   request log has exactly one request for it, from the first host;
 * - the second agent reruns with the SAME frozen configuration: its
 *   `agentConfigurations` entry is byte-identical before and after, and its
 *   rerun still reaches model A, while the third, new, agent is prepared in
 *   the resumed segment and reaches model B;
 * - the run directory is readable after the kill and at the end (snapshot
 *   parses and validates, every journal record has a known shape).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal, readSnapshot, listRuns, JOURNAL_FILE, RESULT_FILE } from '../../kernel/store/index.js';
import { parseSnapshot, type RunSnapshot } from '../../kernel/engine/snapshot.js';
import { parseJournalRecord, type JournalRecord } from '../../kernel/engine/journal-record.js';
import type { AgentChildConfig } from './agent-child.js';
import { collectStderr, readHostReports, TS_HOST_ARGV, type HostError, type Outcome } from './shared.js';

const CHILD = fileURLToPath(new URL('./agent-child.ts', import.meta.url));
const CHILD_TIMEOUT_MS = 60_000;
const SESSION = 'agents';
const API = 'faux-crash-agents';
const PROVIDER = 'faux';
const MODELS = ['model-a', 'model-b'] as const;
const MODEL_A = `${PROVIDER}/model-a`;
const MODEL_B = `${PROVIDER}/model-b`;

const SCRIPT = `
const a = await agent('first', { model: 'worker' });
const b = await agent('second', { model: 'worker' });
const c = await agent('third', { model: 'worker' });
return [a, b, c];
`;

interface ChildResult {
  readonly runId?: string;
  readonly runDir?: string;
  readonly outcome?: Outcome;
  readonly error?: HostError;
  readonly killed: boolean;
  readonly exit: { code: number | null; signal: NodeJS.Signals | null };
  readonly stderr: string;
}

interface LoggedRequest {
  readonly child: string;
  readonly pid: number;
  readonly prompt: string;
  readonly model: string;
  readonly reasoning: string | null;
}

/**
 * Runs one host process. `killWhen(runDir)` is polled every few ms once the
 * host reported its run; the first time it returns true the host is SIGKILLed.
 */
function runChild(config: AgentChildConfig, killWhen?: (runDir: string) => boolean): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TS_HOST_ARGV, CHILD, JSON.stringify(config)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // Pi reads nothing from the real home: its agent dir and home are the test's.
      env: { ...process.env, PI_CODING_AGENT_DIR: config.agentDir, HOME: config.home },
    });
    const stderr = collectStderr(child.stderr);
    let runId: string | undefined;
    let runDir: string | undefined;
    let outcome: Outcome | undefined;
    let error: HostError | undefined;
    let killed = false;
    let poll: NodeJS.Timeout | undefined;
    const kill = () => {
      if (killed || child.exitCode !== null || child.signalCode !== null) return;
      killed = true;
      child.kill('SIGKILL');
      if (poll) clearInterval(poll);
    };
    const deadline = setTimeout(() => {
      kill();
      reject(new Error(`host process ${config.child} did not finish within ${CHILD_TIMEOUT_MS} ms; stderr:\n${stderr.text}`));
    }, CHILD_TIMEOUT_MS);

    readHostReports(child.stdout, {
      onRun(id, dir) {
        [runId, runDir] = [id, dir];
        if (killWhen) {
          const watched = runDir!;
          poll = setInterval(() => {
            if (killWhen(watched)) kill();
          }, 2);
        }
      },
      onOutcome(reported) {
        outcome = reported;
      },
      onError(reported) {
        error = reported;
      },
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(deadline);
      if (poll) clearInterval(poll);
      resolve({
        ...(runId === undefined ? {} : { runId }),
        ...(runDir === undefined ? {} : { runDir }),
        ...(outcome === undefined ? {} : { outcome }),
        ...(error === undefined ? {} : { error }),
        killed,
        exit: { code, signal },
        stderr: stderr.text,
      });
    });
  });
}

// ---- what is on disk ---------------------------------------------------------

interface DiskState {
  readonly snapshot: RunSnapshot;
  readonly records: readonly JournalRecord[];
}

/** Reads the run directory the way a new host would, throwing a precise message when it cannot. */
function inspectRun(root: string, cwd: string, runDir: string): DiskState {
  const broken = listRuns(root, cwd, SESSION).filter((entry) => entry.error);
  if (broken.length > 0) throw new Error(`unreadable run directories: ${broken.map((entry) => `${entry.runDir}: ${String(entry.error)}`).join(', ')}`);
  try {
    JSON.parse(readFileSync(join(runDir, 'snapshot.json'), 'utf8'));
  } catch (error) {
    throw new Error(`snapshot.json does not parse: ${(error as Error).message}`);
  }
  const snapshot = parseSnapshot(readSnapshot(runDir), runDir);
  const records = readJournal(runDir).map((record, index) => parseJournalRecord(record, index));
  return { snapshot, records };
}

/** Tolerant reads for the kill condition: a file may be mid-write or absent. */
function journalAgentKeys(runDir: string): string[] {
  let text: string;
  try {
    text = readFileSync(join(runDir, JOURNAL_FILE), 'utf8');
  } catch {
    return [];
  }
  const keys: string[] = [];
  for (const line of text.split('\n')) {
    try {
      const record = JSON.parse(line) as { kind?: string; key?: string };
      if (record.kind === 'agent' && typeof record.key === 'string') keys.push(record.key);
    } catch {
      // a torn or empty line
    }
  }
  return keys;
}

function storedConfigurations(runDir: string): Record<string, unknown> | undefined {
  try {
    return (JSON.parse(readFileSync(join(runDir, 'snapshot.json'), 'utf8')) as { agentConfigurations?: Record<string, unknown> }).agentConfigurations;
  } catch {
    return undefined;
  }
}

function requests(file: string): LoggedRequest[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as LoggedRequest);
}

function count(log: readonly LoggedRequest[], child: string, prompt: string): number {
  return log.filter((entry) => entry.child === child && entry.prompt === prompt).length;
}

// ---- the test ---------------------------------------------------------------------

/** CRASH_KEEP=1 keeps the temp tree of a passing run too (a failing one is always kept). */
const dirs: string[] = [];
const summary: string[] = [];
afterAll(() => {
  if (summary.length > 0) console.log(`agent crash test: ${summary.join('; ')}`);
  if (process.env['CRASH_KEEP']) return;
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('a host SIGKILLed during an agent turn on the Pi transport', () => {
  let base: string;
  let agentDir: string;
  let config: Omit<AgentChildConfig, 'child'>;
  const writeAliases = (target: string) =>
    writeFileSync(join(agentDir, 'pi-extensible-workflows', 'settings.json'), JSON.stringify({ modelAliases: { worker: `${target}:low` } }, null, 2));

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'wf-crash-agents-'));
    agentDir = join(base, 'agent');
    const cwd = join(base, 'project');
    mkdirSync(join(agentDir, 'pi-extensible-workflows'), { recursive: true });
    mkdirSync(cwd);
    // The faux API id is registered by each host process; models.json declares it like a user's custom provider.
    writeFileSync(
      join(agentDir, 'models.json'),
      JSON.stringify({
        providers: {
          [PROVIDER]: {
            baseUrl: 'http://127.0.0.1:9/faux',
            api: API,
            apiKey: 'faux-key',
            models: MODELS.map((id) => ({ id, name: id, reasoning: true, input: ['text'], contextWindow: 128000, maxTokens: 16384 })),
          },
        },
      }),
    );
    writeFileSync(join(agentDir, 'settings.json'), JSON.stringify({ retry: { enabled: false } }));
    config = {
      root: join(base, 'root'),
      agentDir,
      home: base,
      cwd,
      script: SCRIPT,
      api: API,
      provider: PROVIDER,
      models: [...MODELS],
      requestLog: join(base, 'requests.jsonl'),
      delayMs: 5,
    };
  });

  it('resumes: the journaled agent is not rerun, the interrupted one reruns with its frozen configuration', async () => {
    const keep = () => `kept for inspection: ${base}`;
    writeAliases(MODEL_A);

    // ---- host 1: killed while the second agent's model request is in flight ----
    let atKill: { agentKeys: string[]; configurations: Record<string, unknown> } | undefined;
    const first = await runChild({ ...config, child: 'host-1', holdPrompt: 'second' }, (runDir) => {
      const agentKeys = journalAgentKeys(runDir);
      const configurations = storedConfigurations(runDir);
      if (agentKeys.length !== 1 || !configurations || Object.keys(configurations).length !== 2) return false;
      if (count(requests(config.requestLog), 'host-1', 'second') !== 1) return false;
      atKill = { agentKeys, configurations };
      return true;
    });
    expect(first.error, `host 1 failed: ${JSON.stringify(first.error)}\n${first.stderr}\n${keep()}`).toBeUndefined();
    expect(first.outcome, `host 1 ended before the kill\n${first.stderr}`).toBeUndefined();
    expect(first.killed).toBe(true);
    expect(first.exit.signal).toBe('SIGKILL');
    expect(atKill).toBeDefined();
    const runId = first.runId!;
    const runDir = first.runDir!;

    const killed = inspectRun(config.root, config.cwd, runDir);
    expect(killed.snapshot.state).toBe('running');
    expect(killed.records.filter((record) => record.kind === 'agent').map((record) => record.key)).toEqual(atKill!.agentKeys);
    const firstKey = atKill!.agentKeys[0]!;
    const secondKey = Object.keys(atKill!.configurations).find((key) => key !== firstKey)!;
    expect(Object.keys(atKill!.configurations)).toContain(firstKey);
    const secondBefore = JSON.stringify(killed.snapshot.agentConfigurations[secondKey]);
    expect(JSON.stringify(atKill!.configurations[secondKey])).toBe(secondBefore);
    expect((killed.snapshot.agentConfigurations[secondKey] as { model: string }).model).toBe(`${MODEL_A}:low`);

    // ---- between hosts: the alias now targets model B ----
    writeAliases(MODEL_B);

    // ---- host 2: recovers and resumes ----
    const second = await runChild({ ...config, child: 'host-2', runId });
    expect(second.error, `host 2 failed: ${JSON.stringify(second.error)}\n${second.stderr}\n${keep()}`).toBeUndefined();
    expect(second.runId).toBe(runId);
    expect(second.outcome?.error, keep()).toBeUndefined();
    expect(second.outcome?.state).toBe('completed');
    expect(second.exit.code).toBe(0);
    const expected = [`first@${MODEL_A}`, `second@${MODEL_A}`, `third@${MODEL_B}`];
    expect(second.outcome?.value).toEqual(expected);
    expect(JSON.parse(readFileSync(join(runDir, RESULT_FILE), 'utf8'))).toEqual(expected);

    // Requests per prompt and host: the journaled first agent was never asked again.
    const log = requests(config.requestLog);
    const table = Object.fromEntries(['host-1', 'host-2'].map((child) => [child, Object.fromEntries(['first', 'second', 'third'].map((prompt) => [prompt, count(log, child, prompt)]))]));
    expect(table, JSON.stringify(log)).toEqual({
      'host-1': { first: 1, second: 1, third: 0 },
      'host-2': { first: 0, second: 1, third: 1 },
    });
    // The rerun second agent reached model A (its frozen configuration), the new third agent model B.
    const served = (child: string, prompt: string) => log.find((entry) => entry.child === child && entry.prompt === prompt);
    expect(served('host-1', 'second')).toMatchObject({ model: MODEL_A, reasoning: 'low' });
    expect(served('host-2', 'second')).toMatchObject({ model: MODEL_A, reasoning: 'low' });
    expect(served('host-2', 'third')).toMatchObject({ model: MODEL_B, reasoning: 'low' });

    // The run directory at the end: readable, the frozen configurations untouched, one record per agent.
    const done = inspectRun(config.root, config.cwd, runDir);
    expect(done.snapshot.state).toBe('completed');
    const configurations = done.snapshot.agentConfigurations;
    expect(JSON.stringify(configurations[secondKey])).toBe(secondBefore);
    expect(JSON.stringify(configurations[firstKey])).toBe(JSON.stringify(atKill!.configurations[firstKey]));
    const thirdKeys = Object.keys(configurations).filter((key) => key !== firstKey && key !== secondKey);
    expect(thirdKeys).toHaveLength(1);
    expect((configurations[thirdKeys[0]!] as { model: string }).model).toBe(`${MODEL_B}:low`);
    const agentRecords = done.records.filter((record) => record.kind === 'agent');
    expect(agentRecords.map((record) => record.key)).toEqual([firstKey, secondKey, thirdKeys[0]]);
    expect(agentRecords.map((record) => record.value)).toEqual(expected);
    // The resumed segment saw the new mapping (so a re-preparation of the second agent would have reached model B).
    const warnings = readFileSync(join(runDir, 'events.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { type: string; details?: { kind?: string; changed?: unknown } })
      .filter((event) => event.type === 'warning' && event.details?.kind === 'model-alias-drift');
    expect(warnings.map((event) => event.details?.changed)).toEqual([[{ alias: 'worker', from: `${MODEL_A}:low`, to: `${MODEL_B}:low` }]]);
    // Two Pi sessions for the interrupted agent (one per host), one for each other agent.
    const sessions = done.snapshot.agentSessions as Record<string, unknown[]>;
    expect(sessions[firstKey]).toHaveLength(1);
    expect(sessions[secondKey]).toHaveLength(2);
    expect(JSON.stringify(sessions[secondKey])).toContain('"transport":"pi"');
    summary.push(`requests per host ${JSON.stringify(table)}, second agent's frozen model ${(configurations[secondKey] as { model: string }).model} before and after the alias moved to ${MODEL_B}`);
    dirs.push(base);
  });
});
