/**
 * The viewer of one engine (one host session): its server, started on
 * first use and closed with the engine, the run source it reads (this
 * session's runs only), and the attempt starts it sees on the kernel's
 * events, so a running attempt's bar starts where it began.
 */
import { WORKFLOW_AGENT_STATE_CHANGED_EVENT, type WorkflowEngine, type WorkflowEvent } from '../../kernel/index.js';
import { buildModel } from './model.js';
import { TrajectoryServer, type RunSource } from './server.js';

export class TrajectoryService {
  readonly engine: WorkflowEngine;
  readonly #starts = new Map<string, Map<string, Map<number, string>>>();
  #server: Promise<TrajectoryServer> | undefined;
  #closed = false;

  constructor(engine: WorkflowEngine) {
    this.engine = engine;
  }

  /** The running server (started now if it is not). */
  open(cwd: string): Promise<TrajectoryServer> {
    if (this.#closed) return Promise.reject(new Error('the workflow session has ended'));
    this.#server ??= TrajectoryServer.start(this.#source(cwd));
    return this.#server;
  }

  get running(): Promise<TrajectoryServer> | undefined {
    return this.#server;
  }

  observe(event: WorkflowEvent): void {
    if (event.sessionId !== this.engine.sessionId) return;
    if (event.type === WORKFLOW_AGENT_STATE_CHANGED_EVENT && event.state === 'running') {
      const run = this.#starts.get(event.runId) ?? new Map<string, Map<number, string>>();
      const agent = run.get(event.agentId) ?? new Map<number, string>();
      if (!agent.has(event.attempt)) agent.set(event.attempt, event.at);
      run.set(event.agentId, agent);
      this.#starts.set(event.runId, run);
    }
    void this.#server?.then((server) => server.notify(event.runId), () => undefined);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const server = this.#server;
    this.#server = undefined;
    await server?.then((running) => running.close(), () => undefined);
  }

  #source(cwd: string): RunSource {
    const engine = this.engine;
    const runDir = (runId: string): string | undefined => {
      try {
        // This session's runs only (spec 1 "Run and its storage": discovery is by cwd and session).
        return engine.status(cwd, runId).sessionId === engine.sessionId ? engine.runDirectory(cwd, runId) : undefined;
      } catch {
        return undefined;
      }
    };
    return {
      list: () => engine.list(cwd).map((run) => ({ runId: run.runId, workflow: run.workflow.name, state: run.state, createdAt: run.createdAt, launchMode: run.launchMode })).reverse(),
      runDir,
      model: (runId) => {
        const dir = runDir(runId);
        if (dir === undefined) return undefined;
        try {
          return JSON.stringify(buildModel(engine.status(cwd, runId), dir, this.#starts.get(runId)));
        } catch {
          return undefined;
        }
      },
    };
  }
}
