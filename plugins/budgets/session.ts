/**
 * The observed transport: every session it creates counts one launch and is
 * watched. At each `turn_end` the growth of the session's cumulative stats is
 * charged; between model turns a reached token, cost or duration hard limit
 * aborts an agent that has not submitted its result, and its prompt fails
 * with BUDGET_EXHAUSTED. A final response that overshoots (the result is
 * already submitted) is accepted. A soft crossing steers one wrap-up
 * instruction into each agent that still has model work ahead.
 */
import type { AgentTransport, SessionStats, WorkflowError, WorkflowSession } from '../../kernel/index.js';
import type { Ledger, WatchedSession } from './ledger.js';

export interface ObservedAgent {
  readonly label: string;
  /** The agent's turn control already carries the soft-budget notice. */
  readonly annotated: boolean;
}

export function observedTransport(transport: AgentTransport, ledger: Ledger, agent: ObservedAgent): AgentTransport {
  return {
    name: transport.name,
    async createSession(input, context) {
      ledger.launch(agent.label);
      return observeSession(await transport.createSession(input, context), ledger, agent);
    },
  };
}

/** Input plus output tokens: the transport's stats already exclude cache reads and writes. */
function spent(stats: SessionStats): { tokens: number; costUsd: number } {
  return { tokens: stats.inputTokens + stats.outputTokens, costUsd: stats.costUsd };
}

export function observeSession(inner: WorkflowSession, ledger: Ledger, agent: ObservedAgent): WorkflowSession {
  let charged = spent(inner.stats());
  let running = false;
  let submitted = false;
  let wrapped = agent.annotated;
  let stopped: WorkflowError | undefined;

  const charge = (stats: SessionStats) => {
    const before = charged;
    charged = spent(stats);
    return ledger.charge(charged.tokens - before.tokens, charged.costUsd - before.costUsd);
  };
  const watched: WatchedSession = {
    wrapUp(text) {
      // Idle, finished or already told: nothing to steer (a later send gets the notice as turn control).
      if (!running || submitted || wrapped) return;
      wrapped = true;
      // A session that ends meanwhile has no next turn to wrap up.
      inner.steer(text).catch(() => undefined);
    },
  };
  const unsubscribe = inner.subscribe((progress) => {
    if (progress.type === 'result') submitted = true;
    if (progress.type !== 'turn_end') return;
    const reached = charge(progress.stats);
    if (reached === undefined || submitted || stopped) return;
    stopped = ledger.exhausted(reached, agent.label);
    void inner.abort();
  });
  ledger.watch(watched);

  const observed: WorkflowSession = {
    reference: inner.reference,
    ...(inner.turnControlDelivered === undefined ? {} : { turnControlDelivered: inner.turnControlDelivered }),
    ...(inner.systemPrompt ? { systemPrompt: inner.systemPrompt.bind(inner) } : {}),
    ...(inner.model ? { model: inner.model.bind(inner) } : {}),
    ...(inner.resources ? { resources: inner.resources.bind(inner) } : {}),
    state: () => inner.state(),
    stats: () => inner.stats(),
    subscribe: (listener) => inner.subscribe(listener),
    async prompt(text, turn) {
      running = true;
      submitted = false;
      stopped = undefined;
      let failure: { error: unknown } | undefined;
      try {
        await inner.prompt(text, turn);
      } catch (error) {
        failure = { error };
      }
      running = false;
      // Transports without turn_end progress are charged here; the rest only catch up.
      const reached = charge(inner.stats());
      // An agent that ended without its result would need more model work.
      if (!stopped && !submitted && reached !== undefined) stopped = ledger.exhausted(reached, agent.label);
      if (stopped) throw stopped;
      if (failure) throw failure.error;
    },
    steer: (text) => inner.steer(text),
    abort: () => inner.abort(),
    async dispose() {
      ledger.unwatch(watched);
      unsubscribe();
      await inner.dispose();
    },
  };
  // Read through, not copied: a remote session learns its native ID only when its worker answers.
  if (inner.nativeSessionId !== undefined) Object.defineProperty(observed, 'nativeSessionId', { get: () => inner.nativeSessionId, enumerable: true });
  return observed;
}
