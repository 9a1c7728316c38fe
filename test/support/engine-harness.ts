/**
 * Shared setup for the engine suites: a private temp tree (root, cwd,
 * agentDir, home), a kernel with the checkpoints and evidence plugins and the
 * echo transport, an event recorder that also captures what snapshot.json
 * said at the moment each event fired, and small readers for run files.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKernel, type Kernel } from '../../kernel/kernel.js';
import type { KernelPlugin } from '../../kernel/plugin-api.js';
import { WorkflowEngine, type EngineOptions, type RunHandle, type RunOutcome } from '../../kernel/engine/engine.js';
import type { LaunchRequest } from '../../kernel/contracts/engine-api.js';
import type { RunSnapshot } from '../../kernel/engine/snapshot.js';
import type { WorkflowEvent } from '../../kernel/events.js';
import type { JsonValue } from '../../kernel/json.js';
import { runDirectory } from '../../kernel/store/index.js';
import { checkpointsPlugin } from '../../plugins/checkpoints/index.js';
import { evidencePlugin } from '../../plugins/evidence/index.js';
import { echoTransportPlugin, type EchoCall } from './echo-transport.js';

export interface RecordedEvent {
  readonly event: WorkflowEvent;
  /** snapshot.json as it was on disk when the event was emitted (null when unreadable). */
  readonly persisted: RunSnapshot | null;
}

export interface HarnessOptions {
  readonly sessionId?: string;
  readonly sandbox?: EngineOptions['sandbox'];
  /** Extra kernel plugins (budgets, worktrees ...), applied after the echo transport. */
  readonly plugins?: readonly KernelPlugin[];
  /** What the engines report without failing a run (a throwing observer ...). */
  readonly onWarning?: EngineOptions['onWarning'];
}

export interface Harness {
  readonly dir: string;
  readonly root: string;
  readonly cwd: string;
  readonly agentDir: string;
  readonly home: string;
  readonly sessionId: string;
  readonly kernel: Kernel;
  engine: WorkflowEngine;
  readonly events: RecordedEvent[];
  /** Every prompt the echo transport received. */
  readonly calls: EchoCall[];
  /** Replaces the echo transport's answer; undefined restores `{ result: 'echo:' + prompt }`. */
  answer: ((prompt: string) => JsonValue | Promise<JsonValue>) | undefined;
  /** Engines made by `newEngine`, closed by `close`. */
  readonly engines: WorkflowEngine[];
  launch(script: string, extra?: Partial<LaunchRequest>): Promise<RunHandle>;
  /** Launches and waits for the segment outcome. */
  run(script: string, extra?: Partial<LaunchRequest>): Promise<RunOutcome & { runDir: string }>;
  /** A fresh project directory (its own run listing). */
  freshCwd(name?: string): string;
  /** Another engine over the same root and kernel; same session unless told. */
  newEngine(options?: { sessionId?: string; sandbox?: EngineOptions['sandbox'] }): WorkflowEngine;
  runDir(runId: string, cwd?: string, sessionId?: string): string;
  snapshot(runDir: string): RunSnapshot;
  writeSnapshot(runDir: string, change: (snapshot: Record<string, unknown>) => void): void;
  journal(runDir: string): Record<string, unknown>[];
  runEvents(runDir: string): Record<string, unknown>[];
  callRecords(runDir: string): Record<string, unknown>[];
  eventsOf(runId: string): RecordedEvent[];
  typesOf(runId: string): string[];
  close(): Promise<void>;
}

let counter = 0;

export function readJsonLines(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export async function waitFor(check: () => boolean, timeoutMs = 30_000, what = 'condition'): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The rejection of `promise` (fails when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<{ code?: string; message: string; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; message: string; details?: Record<string, unknown> };
  }
  throw new Error('expected a rejection');
}

/** The synchronous throw of `fn` (fails when it returns). */
export function thrownBy(fn: () => unknown): { code?: string; message: string; details?: Record<string, unknown> } {
  try {
    fn();
  } catch (error) {
    return error as { code?: string; message: string; details?: Record<string, unknown> };
  }
  throw new Error('expected a throw');
}

export function createHarness(options: HarnessOptions = {}): Harness {
  const dir = mkdtempSync(join(tmpdir(), 'wf-engine-'));
  const root = join(dir, 'root');
  const home = join(dir, 'home');
  const agentDir = join(dir, 'agent');
  const cwd = join(dir, 'project');
  for (const path of [home, agentDir, cwd]) mkdirSync(path, { recursive: true });
  const sessionId = options.sessionId ?? 's1';
  const events: RecordedEvent[] = [];
  const calls: EchoCall[] = [];

  const snapshotAt = (event: WorkflowEvent): RunSnapshot | null => {
    try {
      const file = join(runDirectory(root, event.cwd, event.sessionId, event.runId), 'snapshot.json');
      return JSON.parse(readFileSync(file, 'utf8')) as RunSnapshot;
    } catch {
      return null;
    }
  };

  // `harness` is assigned below; the transport reads its current `answer`.
  // eslint-disable-next-line prefer-const
  let harness: Harness;
  const kernel = createKernel({
    plugins: [
      checkpointsPlugin,
      evidencePlugin,
      echoTransportPlugin({ calls, answer: (prompt) => (harness.answer ? harness.answer(prompt) : { result: `echo:${prompt}` }) }),
      ...(options.plugins ?? []),
      { name: 'event-recorder', apply: (k) => k.hooks.events.emit.tap('event-recorder', (event) => void events.push({ event, persisted: snapshotAt(event) })) },
    ],
  });
  const engines: WorkflowEngine[] = [];
  const make = (engineOptions: { sessionId?: string; sandbox?: EngineOptions['sandbox'] } = {}): WorkflowEngine => {
    const sandbox = engineOptions.sandbox ?? options.sandbox;
    const engine = new WorkflowEngine({
      kernel,
      sessionId: engineOptions.sessionId ?? sessionId,
      root,
      agentDir,
      home,
      ...(sandbox ? { sandbox } : {}),
      ...(options.onWarning ? { onWarning: options.onWarning } : {}),
    });
    engines.push(engine);
    return engine;
  };

  harness = {
    dir,
    root,
    cwd,
    agentDir,
    home,
    sessionId,
    kernel,
    engine: make(),
    events,
    calls,
    answer: undefined,
    engines,
    launch(script, extra = {}) {
      return harness.engine.launch({ name: 'test', cwd, script, ...extra } as LaunchRequest);
    },
    async run(script, extra = {}) {
      const handle = await harness.launch(script, extra);
      return { ...(await handle.outcome), runDir: handle.runDir };
    },
    freshCwd(name = 'p') {
      const path = join(dir, `${name}-${++counter}`);
      mkdirSync(path, { recursive: true });
      return path;
    },
    newEngine: make,
    runDir(runId, runCwd = cwd, runSession = sessionId) {
      return runDirectory(root, runCwd, runSession, runId);
    },
    snapshot(runDir) {
      return JSON.parse(readFileSync(join(runDir, 'snapshot.json'), 'utf8')) as RunSnapshot;
    },
    writeSnapshot(runDir, change) {
      const file = join(runDir, 'snapshot.json');
      const value = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      change(value);
      writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
    },
    journal: (runDir) => readJsonLines(join(runDir, 'journal.jsonl')),
    runEvents: (runDir) => readJsonLines(join(runDir, 'events.jsonl')),
    callRecords: (runDir) => readJsonLines(join(runDir, 'calls.jsonl')),
    eventsOf: (runId) => events.filter((recorded) => recorded.event.runId === runId),
    typesOf: (runId) => events.filter((recorded) => recorded.event.runId === runId).map((recorded) => recorded.event.type),
    async close() {
      await Promise.all(engines.map((engine) => engine.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** Writes `<agentDir>/pi-extensible-workflows/settings.json`; returns its path. */
export function writeGlobalSettings(agentDir: string, value: unknown): string {
  const folder = join(agentDir, 'pi-extensible-workflows');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, 'settings.json');
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

export function removeGlobalSettings(agentDir: string): void {
  rmSync(join(agentDir, 'pi-extensible-workflows'), { recursive: true, force: true });
}

/**
 * A shell command that writes `started-<tag>` and then blocks until the test
 * creates `release-<tag>` (see `release`), at most about 10 s. Deterministic
 * where a sleep would race a loaded machine.
 */
export function gated(tag = 'gate', then = 'true'): string {
  return `echo s > started-${tag}; n=0; while [ ! -f release-${tag} ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n+1)); done; ${then}`;
}

/** Waits until the gated shell `tag` runs in `cwd`. */
export function gateStarted(cwd: string, tag = 'gate'): Promise<void> {
  return waitFor(() => existsSync(join(cwd, `started-${tag}`)), 10_000, `started-${tag}`);
}

/** Lets the gated shell `tag` in `cwd` finish. */
export function release(cwd: string, tag = 'gate'): void {
  writeFileSync(join(cwd, `release-${tag}`), '');
}
