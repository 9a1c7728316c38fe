/**
 * Nested agents: a workflow agent may spawn children with the `agent` tool
 * and collect each result once with `get_subagent_result`. A child shares the
 * parent's structural scope and worktree, has its own identity
 * `child:<parent>/spawn:<n>/<label>`, and reruns with its parent on resume.
 */
import { WorkflowError, isWorkflowError, messageOf } from '../../errors.js';
import { NO_USAGE, addUsage } from '../../usage.js';
import type { JsonValue } from '../../json.js';
import type { AgentCallOptions } from '../../contracts/agent-options.js';
import type { AgentIdentity } from '../../contracts/identity.js';
import type { CustomToolDefinition } from '../../contracts/setup.js';
import type { AgentUsage } from '../journal-record.js';
import { isStoreFault } from '../../store/index.js';
import { parseAgentArgs } from './agent-options.js';

export const SPAWN_TOOL = 'agent';
export const COLLECT_TOOL = 'get_subagent_result';

/** What the runner offers the child registry: run one child to its result. */
export interface ChildRunner {
  /** `tally` holds what the child used so far, whether it completes, fails or is cancelled. */
  run(request: { prompt: string; options: AgentCallOptions; identity: AgentIdentity; agentId: string }, signal: AbortSignal, tally: { usage: AgentUsage }): Promise<{ value: JsonValue; usage: AgentUsage }>;
  /** The parent waits on a child: `waiting_for_child`, and its slots go to whoever is queued (the child among them). */
  suspend(): void;
  /** The parent works again once it holds its slots again. */
  resume(): Promise<void>;
  /** A child hit a host fault (a store write, its transcript): the parent's attempt must end with it. */
  fault(error: unknown): void;
}

interface Child {
  readonly id: string;
  readonly label: string;
  readonly outcome: Promise<{ value: JsonValue; usage: AgentUsage }>;
  readonly tally: { usage: AgentUsage };
  collected: boolean;
}

/** Only core raises CANCELLED and BUDGET_EXHAUSTED for a child; other unknown failures become AGENT_FAILED. */
export function childError(error: unknown, aborted: boolean): WorkflowError {
  if (aborted) return new WorkflowError('CANCELLED', 'the child agent was cancelled');
  if (isWorkflowError(error) && error.code !== 'CANCELLED') return error;
  return new WorkflowError('AGENT_FAILED', `the child agent failed: ${messageOf(error)}`);
}

const SPAWN_PARAMETERS = {
  type: 'object',
  additionalProperties: false,
  required: ['prompt'],
  properties: {
    prompt: { type: 'string', description: 'The task for the child agent, exactly as it should read it.' },
    label: { type: 'string', description: 'A short display name for the child.' },
    model: { type: 'string', description: 'A model alias or provider/model:thinking.' },
    tools: { type: 'array', items: { type: 'string' } },
    skills: { type: 'array', items: { type: 'string' } },
    extensions: { type: 'array', items: { type: 'string' } },
    excludeTools: { type: 'array', items: { type: 'string' } },
    outputSchema: { type: 'object' },
  },
} as const;

export class ChildAgents {
  readonly #children = new Map<string, Child>();
  readonly #occurrences = new Map<string, number>();
  readonly #abort = new AbortController();
  #spawned = 0;
  #fault: unknown;
  /** Collects in progress: the parent waits while any is. */
  #waiting = 0;
  readonly #parent: { readonly agentId: string; readonly identity: AgentIdentity };
  readonly #runner: ChildRunner;

  constructor(parent: { agentId: string; identity: AgentIdentity }, runner: ChildRunner, signal: AbortSignal) {
    this.#parent = parent;
    this.#runner = runner;
    signal.addEventListener('abort', () => this.#abort.abort(), { once: true });
  }

  /** The first host fault of a child: it halts the run, so it ends the parent instead of reaching its model. */
  get fault(): unknown {
    return this.#fault;
  }

  /**
   * Usage of every child, for the parent's accounting: completed, failed and
   * cancelled ones alike, each once it settled (call after `close`, which
   * cancels the uncollected ones).
   */
  async settledUsage(): Promise<AgentUsage> {
    const children = [...this.#children.values()];
    await Promise.allSettled(children.map((child) => child.outcome));
    return children.reduce((sum, { tally: { usage } }) => addUsage(sum, usage), NO_USAGE);
  }

  spawn(params: JsonValue): { id: string; label: string } {
    const { prompt: rawPrompt, label: rawLabel, ...rest } = (params ?? {}) as Record<string, JsonValue>;
    const { prompt, options } = parseAgentArgs([rawPrompt, rest], 'agent tool');
    const given = typeof rawLabel === 'string' && rawLabel.trim() !== '' ? rawLabel.trim() : undefined;
    // The identity needs a label now; without one, the display label is the child's effective model once prepared.
    const label = given ?? options.model ?? 'child';
    this.#spawned += 1;
    const occurrence = this.#occurrences.get(label) ?? 0;
    this.#occurrences.set(label, occurrence + 1);
    const callSite = `child:${this.#parent.agentId}/spawn:${this.#spawned}/${label}`;
    const { handle: _handle, turn: _turn, ...inherited } = this.#parent.identity;
    const identity: AgentIdentity = { ...inherited, callSite, occurrence };
    const id = `${callSite}#${occurrence}`;
    const tally = { usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 } };
    const outcome = this.#runner.run({ prompt, options: given === undefined ? options : { ...options, label: given }, identity, agentId: id }, this.#abort.signal, tally);
    // Collected or not, a failed child must not become an unhandled rejection.
    outcome.catch((error: unknown) => {
      if (!isStoreFault(error) || this.#fault !== undefined) return;
      this.#fault = error;
      this.#runner.fault(error);
    });
    this.#children.set(id, { id, label, outcome, tally, collected: false });
    return { id, label };
  }

  async collect(params: JsonValue): Promise<JsonValue> {
    const id = (params as { id?: unknown } | null)?.id;
    const child = typeof id === 'string' ? this.#children.get(id) : undefined;
    if (!child) throw new WorkflowError('INVALID_METADATA', `no child agent has the id ${JSON.stringify(id)}`);
    if (child.collected) {
      throw new WorkflowError('AGENT_RESULT_COLLECTED', `the result of child ${child.id} was already collected; do not call get_subagent_result for it again`);
    }
    child.collected = true;
    if (++this.#waiting === 1) this.#runner.suspend();
    try {
      const { value } = await child.outcome;
      return { id: child.id, label: child.label, result: value };
    } catch (error) {
      throw isStoreFault(error) ? error : childError(error, this.#abort.signal.aborted);
    } finally {
      if (--this.#waiting === 0) await this.#runner.resume();
    }
  }

  /** The parent attempt ended: children nobody will collect are cancelled. */
  close(): void {
    this.#abort.abort();
  }

  tools(): CustomToolDefinition[] {
    return [
      {
        name: SPAWN_TOOL,
        description: 'Start a child agent on a task. Returns its id at once; collect its result with get_subagent_result.',
        parameters: SPAWN_PARAMETERS,
        execute: async (params) => this.spawn(params),
        rerunOnReattach: true,
      },
      {
        name: COLLECT_TOOL,
        description: 'Wait for a child agent started with the agent tool and return its result. Each result can be collected once.',
        parameters: { type: 'object', additionalProperties: false, required: ['id'], properties: { id: { type: 'string' } } },
        execute: (params) => this.collect(params),
        rerunOnReattach: true,
      },
    ];
  }
}
