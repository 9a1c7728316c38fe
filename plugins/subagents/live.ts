/**
 * The live side of standalone subagents, reached through the kernel's own
 * agent runner: the plugin's setup tap wraps the transport of a standalone
 * run's top-level agent, so each attempt's session is known while it exists
 * (`subagents_steer`, an attempt action's `liveSession`), and its progress
 * (turns, tool calls, live usage, the effective model and resolved tools) is
 * written to the run's plugin state as it happens (progress writes, not
 * fsynced). Nothing here runs an agent: the kernel does.
 */
import type { AgentSetup, AgentSetupContext, AgentTransport, RunAccess, SessionProgress, SessionStats, WorkflowSession } from '../../kernel/index.js';
import { PLUGIN_NAME, parseState, toJson, writableState, ZERO_USAGE, type SubagentState } from './state.js';

export interface LiveAttempt {
  readonly runId: string;
  readonly attempt: number;
  readonly session: WorkflowSession;
}

export type ChangeListener = (runId: string) => void;

export class LiveSessions {
  readonly #attempts = new Map<string, LiveAttempt>();
  readonly #listeners = new Set<ChangeListener>();

  /** The session of the run's current attempt, while it exists. */
  get(runId: string): LiveAttempt | undefined {
    const live = this.#attempts.get(runId);
    return live === undefined || live.session.state() === 'disposed' ? undefined : live;
  }

  /** Called after a run's stored or live state changed (events, progress). Returns the unsubscribe. */
  onChange(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  changed(runId: string): void {
    // A run's events follow its attempts: a disposed session is forgotten here.
    if (this.#attempts.get(runId)?.session.state() === 'disposed') this.#attempts.delete(runId);
    for (const listener of [...this.#listeners]) {
      try {
        listener(runId);
      } catch {
        // A view's bug must not break the agent or other views.
      }
    }
  }

  /** The setup tap: a standalone run's top-level agent gets the observing transport; anything else passes. */
  setup(agent: AgentSetup, context: AgentSetupContext): AgentSetup {
    if (parseState(context.access.pluginState(PLUGIN_NAME)) === undefined) return agent;
    // Nested children run under their parent's attempt; only the subagent itself is steered and counted.
    if (context.identity.callSite.startsWith('child:')) return agent;
    return { ...agent, transport: this.#observed(agent.transport, context) };
  }

  #observed(transport: AgentTransport, context: AgentSetupContext): AgentTransport {
    return {
      name: transport.name,
      createSession: async (input, transportContext) => {
        const session = await transport.createSession(input, transportContext);
        const runId = context.run.runId;
        this.#attempts.set(runId, { runId, attempt: context.attempt, session });
        const tools = session.resources?.().tools ?? input.tools;
        // An agent without a model runs on the transport's default: the session knows which.
        const model = session.model?.() ?? input.model;
        record(context.access, (state) => ({ ...state, session: { attempt: context.attempt, model, tools: [...tools] }, progress: { ...state.progress, liveUsage: ZERO_USAGE } }));
        this.changed(runId);
        // A disposed session drops its listeners; the runner sees the session itself, unwrapped.
        session.subscribe((progress) => {
          if (record(context.access, (state) => advance(state, progress, () => session.stats()))) this.changed(runId);
        });
        return session;
      },
    };
  }
}

function usageOf(stats: SessionStats): SubagentState['progress']['liveUsage'] {
  return { inputTokens: stats.inputTokens, outputTokens: stats.outputTokens, costUsd: stats.costUsd };
}

/**
 * The state after one progress event; the same object when it changes
 * nothing shown. Usage is the session's cumulative stats: a tool call starts
 * after the model's answer that asked for it, so that answer's tokens count
 * while the tool runs, not only once the turn ends.
 */
function advance(state: SubagentState, progress: SessionProgress, stats: () => SessionStats): SubagentState {
  const now = new Date().toISOString();
  const { progress: current } = state;
  switch (progress.type) {
    case 'turn_start':
      return { ...state, progress: { ...current, turns: current.turns + 1, lastActivity: now } };
    case 'turn_end':
      return { ...state, progress: { ...current, liveUsage: usageOf(progress.stats), lastActivity: now } };
    case 'tool':
      return {
        ...state,
        progress: {
          ...current,
          toolCalls: { ...current.toolCalls, [progress.name]: (current.toolCalls[progress.name] ?? 0) + 1 },
          lastTool: progress.name,
          liveUsage: usageOf(stats()),
          lastActivity: now,
        },
      };
    default:
      return state;
  }
}

/** Best-effort progress write; false when nothing was written. */
function record(access: RunAccess, change: (state: SubagentState) => SubagentState): boolean {
  try {
    const state = writableState(access.pluginState(PLUGIN_NAME));
    if (state === undefined) return false;
    const next = change(state);
    if (next === state) return false;
    access.setPluginState(PLUGIN_NAME, toJson(next), { durable: false });
    return true;
  } catch {
    // Progress is display only: the agent's own state is the kernel's.
    return false;
  }
}
