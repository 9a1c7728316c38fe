/**
 * The viewer of one engine (one host session): its server, started on
 * first use and closed with the engine, the run source it reads (this
 * session's runs only), and the attempt starts it sees on the kernel's
 * events, so a running attempt's bar starts where it began. The server and
 * what it reads (models, transcripts, reports, controls) load on first use:
 * a session that never opens the viewer never loads them.
 */
import { WORKFLOW_AGENT_STATE_CHANGED_EVENT, type RunHandle, type WorkflowEngineApi, type WorkflowEvent } from '../../kernel/index.js';
import type { TrajectoryServer } from '../../lib/trajectory/server.js';

export class TrajectoryService {
  readonly engine: WorkflowEngineApi;
  /** Follows a run the page resumed: the host session's watch, once a host started on this engine. */
  follow: ((handle: RunHandle) => void) | undefined;
  readonly #starts = new Map<string, Map<string, Map<number, string>>>();
  #server: Promise<TrajectoryServer> | undefined;
  #closed = false;

  constructor(engine: WorkflowEngineApi) {
    this.engine = engine;
  }

  /** The running server (started now if it is not). */
  open(cwd: string): Promise<TrajectoryServer> {
    if (this.#closed) return Promise.reject(new Error('the workflow session has ended'));
    this.#server ??= this.#start(cwd);
    return this.#server;
  }

  async #start(cwd: string): Promise<TrajectoryServer> {
    const [{ TrajectoryServer: Server }, { createRunSource }] = await Promise.all([import('../../lib/trajectory/server.js'), import('./source.js')]);
    return Server.start(createRunSource({ engine: this.engine, cwd, starts: this.#starts, follow: () => this.follow }), { scope: 'session', opener: '/workflow trajectory' });
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
}
