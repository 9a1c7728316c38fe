/**
 * Unit-test fixture of the subagents plugin: a real kernel and engine with
 * the subagents plugin, a scripted transport whose sessions report progress,
 * take steering and can be held, and the host session the plugin receives at
 * `host.started` (as the workflow host gives it). The real Pi session and
 * `pi` CLI are exercised in pi-session.test.ts and test/e2e/subagents*.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  TRANSPORT_CAPABILITY,
  WorkflowEngine,
  createKernel,
  type JsonValue,
  type KernelPlugin,
  type SessionProgress,
  type StatusSummary,
  type WorkflowHostSession,
  type WorkflowSession,
} from '../../../kernel/index.js';
import { createSubagentsPlugin, SubagentsRuntime, type SubagentsSession } from '../../../plugins/subagents/index.js';
import type { FollowUp } from '../../../plugins/subagents/session.js';
import { deferred } from '../../support/engine-harness.js';

/** What a scripted agent does with its prompt: report progress, wait, read steering, then answer. */
export interface AgentControls {
  readonly prompt: string;
  readonly model: string;
  /** Where the agent works (a worktree scope's directory inside one). */
  readonly cwd: string;
  readonly label: string;
  emit(progress: SessionProgress): void;
  /** Messages steered into this session so far. */
  readonly steers: readonly string[];
  /** Resolves at the next steer. */
  nextSteer(): Promise<string>;
  readonly signal: AbortSignal;
}

export type AgentScript = (agent: AgentControls) => JsonValue | Promise<JsonValue>;

export function scriptedTransportPlugin(script: () => AgentScript): KernelPlugin {
  let sessions = 0;
  return {
    name: 'scripted-transport',
    provides: { capabilities: [TRANSPORT_CAPABILITY] },
    apply(kernel) {
      kernel.hooks.transport.select.tap('scripted-transport', () => ({
        name: 'scripted',
        async createSession(input) {
          const id = ++sessions;
          const listeners = new Set<(progress: SessionProgress) => void>();
          const steers: string[] = [];
          let waiter = deferred<string>();
          let state: 'idle' | 'running' | 'disposed' = 'idle';
          let turns = 0;
          const abort = new AbortController();
          const emit = (progress: SessionProgress): void => {
            if (progress.type === 'turn_start') turns += 1;
            for (const listener of listeners) listener(progress);
          };
          const session: WorkflowSession = {
            reference: { transport: 'scripted', session: id },
            state: () => state,
            stats: () => ({ inputTokens: 100 * turns, outputTokens: 10 * turns, costUsd: 0.01 * turns, turns }),
            subscribe(listener) {
              listeners.add(listener);
              return () => listeners.delete(listener);
            },
            resources: () => ({ tools: ['read', 'workflow_result'], skills: [], extensions: [] }),
            // Like Pi's default model when the agent names none.
            model: () => (input.model === '' ? 'scripted/default:off' : input.model),
            async prompt(text) {
              state = 'running';
              try {
                const value = await Promise.race([
                  Promise.resolve(script()({ prompt: text, model: input.model, cwd: input.cwd, label: input.sessionLabel, emit, steers, nextSteer: () => waiter.promise, signal: abort.signal })),
                  new Promise<never>((_resolve, reject) => abort.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
                ]);
                emit({ type: 'turn_end', stats: session.stats() });
                emit({ type: 'result', value });
              } finally {
                if (state === 'running') state = 'idle';
              }
            },
            async steer(text) {
              steers.push(text);
              const current = waiter;
              waiter = deferred<string>();
              current.resolve(text);
            },
            async abort() {
              abort.abort();
            },
            async dispose() {
              abort.abort();
              state = 'disposed';
            },
          };
          return session;
        },
      }));
    },
  };
}

export interface SubagentsFixture {
  readonly root: string;
  readonly cwd: string;
  readonly agentDir: string;
  readonly runtime: SubagentsRuntime;
  readonly engine: WorkflowEngine;
  readonly session: SubagentsSession;
  readonly host: WorkflowHostSession;
  /** Follow-up messages delivered so far. */
  readonly followUps: FollowUp[];
  /** The predicate the plugin claimed runs with. */
  claimed(run: StatusSummary): boolean;
  /** The agent script for the next sessions (default: answer `{ result: 'done:' + prompt }`). */
  script: AgentScript;
  /** A new engine and session over the same storage (a new Pi process). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function createSubagentsFixture(extra: readonly KernelPlugin[] = []): Promise<SubagentsFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'subagents-'));
  const cwd = join(dir, 'project');
  const agentDir = join(dir, 'agent');
  mkdirSync(cwd);
  mkdirSync(agentDir);
  const runtime = new SubagentsRuntime();
  const followUps: FollowUp[] = [];
  runtime.attachPi({ followUp: (message) => void followUps.push(message), contextUsage: () => undefined });
  const claims = new Map<string, (run: StatusSummary) => boolean>();
  const fixture = {
    root: join(dir, 'runs'),
    cwd,
    agentDir,
    runtime,
    followUps,
    script: ((agent) => ({ result: `done:${agent.prompt}` })) as AgentScript,
    claimed: (run: StatusSummary) => [...claims.values()].some((owns) => owns(run)),
  } as SubagentsFixture & { engine: WorkflowEngine; session: SubagentsSession; host: WorkflowHostSession };
  const kernel = createKernel({ plugins: [scriptedTransportPlugin(() => fixture.script), createSubagentsPlugin(runtime), ...extra] });
  const start = (): void => {
    const engine = new WorkflowEngine({ kernel, sessionId: 'session-1', root: fixture.root, agentDir });
    const host: WorkflowHostSession = { engine, cwd, sessionId: 'session-1', agentDir, projectTrusted: false, claimRuns: (owner, owns) => void claims.set(owner, owns), watch: () => undefined, followed: () => false };
    kernel.hooks.host.started.call(host);
    Object.assign(fixture, { engine, host, session: runtime.session });
  };
  start();
  fixture.restart = async () => {
    kernel.hooks.host.stopped.call(fixture.host);
    await fixture.engine.close();
    start();
  };
  fixture.close = async () => {
    kernel.hooks.host.stopped.call(fixture.host);
    await fixture.engine.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return fixture;
}
