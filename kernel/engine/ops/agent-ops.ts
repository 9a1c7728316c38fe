/**
 * The script's agent operations in one run segment: `agent(...)`,
 * `agent.create(...)` and `handle.send(...)`. Each call holds a journal key
 * (through the execution's `step`), runs where its scope works (the run's
 * cwd or a worktree scope's) and is admitted by the run's and the session's
 * agent limits. Named handles keep their live session between turns.
 */
import type { JsonValue } from '../../json.js';
import type { AgentCallOptions } from '../../contracts/agent-options.js';
import type { WorkflowSession } from '../../contracts/transport.js';
import type { AgentPlaceInput, AgentPlacement } from '../../hooks.js';
import { mismatch, type AgentUsage } from '../journal-record.js';
import type { Steps } from '../steps.js';
import type { Scope } from '../keys.js';
import { lease, Slots } from '../scheduler.js';
import type { ScopeCwds } from '../scope-cwds.js';
import { parseAgentArgs } from './agent-options.js';
import { createAgentEnv, type AgentEnvDeps } from './agent-env.js';
import { runRecorded } from './agent-runner.js';
import { AgentHandles } from './handles.js';

/** Runs one agent call under its journal key: replayed when journaled, else performed and journaled. */
export type AgentStep = (
  scope: Scope,
  site: string,
  perform: (key: string, occurrence: number) => Promise<{ value: JsonValue; usage: AgentUsage }>,
) => Promise<JsonValue>;

/** The AgentStep of a run: an agent call is one journaled step whose record keeps the value and the usage. */
export function journaledAgentStep(steps: Steps): AgentStep {
  return (scope, site, perform) =>
    steps.step(scope, site, 'agent', (past) => (past.kind === 'agent' ? past.value : mismatch(past, 'agent')), async (key, occurrence) => {
      const { value, usage } = await perform(key, occurrence);
      return { value, body: { kind: 'agent', value, usage } };
    });
}

export interface AgentOpsDeps extends Omit<AgentEnvDeps, 'handleSessions' | 'admit'> {
  /** Per-run active-agent limit (1 to 16). */
  readonly concurrency: number;
  /** The session-wide active-agent ceiling. */
  readonly agentSlots: Slots;
  readonly scopeCwds: ScopeCwds;
  readonly signal: AbortSignal;
  /** Sees the options of each performed agent call and each handle created, by site: warnings about foreign options. */
  noteOptions?(site: string, options: AgentCallOptions): void;
  /** The options the call runs with (`schema` read as outputSchema, schema-option.ts); throws INVALID_METADATA when they cannot be. */
  adoptOptions?(site: string, options: AgentCallOptions): AgentCallOptions;
}

export class AgentOps {
  readonly #handles = new AgentHandles();
  /** Live sessions of named handles, so every send continues the transcript. */
  readonly #sessions = new Map<string, WorkflowSession>();
  readonly #deps: AgentOpsDeps;
  readonly #env: AgentEnvDeps;
  readonly #step: AgentStep;

  constructor(deps: AgentOpsDeps, step: AgentStep) {
    this.#deps = deps;
    this.#step = step;
    const runSlots = new Slots(deps.concurrency);
    this.#env = { ...deps, handleSessions: this.#sessions, admit: (signal) => lease(runSlots, deps.agentSlots, signal) };
  }

  agent(site: string, scope: Scope, args: readonly JsonValue[]): Promise<JsonValue> {
    return this.#call(site, scope, () => parseAgentArgs(args));
  }

  create(scope: Scope, args: readonly JsonValue[], site?: string): void {
    this.#handles.create(scope, args);
    const options = args[0];
    if (site !== undefined && typeof options === 'object' && options !== null && !Array.isArray(options)) {
      // The handle's name is create's own option.
      const { name: _name, ...rest } = options as Readonly<Record<string, JsonValue>>;
      this.#deps.noteOptions?.(site, rest as AgentCallOptions);
    }
  }

  async send(site: string, scope: Scope, args: readonly JsonValue[]): Promise<JsonValue> {
    const turn = this.#handles.begin(scope, args);
    try {
      return await this.#call(`${site}@${turn.name}`, scope, () => turn, turn);
    } finally {
      turn.done();
    }
  }

  /** The segment ended: live handle sessions go. */
  dispose(): void {
    for (const session of this.#sessions.values()) void session.dispose();
    this.#sessions.clear();
  }

  /** Where the call works: where its scope works, unless a `preparation.place` tap moves it (a worktree of its own). */
  #place(options: AgentCallOptions, call: AgentPlaceInput['call']): Promise<AgentPlacement> {
    const { cwd, owner } = this.#deps.scopeCwds.of(call.scope);
    const start: AgentPlacement = { path: call.scope, cwd, ...(owner === undefined ? {} : { owner }) };
    const hook = this.#deps.kernel.hooks.preparation.place;
    if (!hook.isUsed()) return Promise.resolve(start);
    return hook.promise(start, { options, call, access: this.#deps.access, signal: this.#deps.signal });
  }

  /** `request` is parsed once the call holds its journal key, so an invalid call still counts as an occurrence. */
  #call(
    site: string,
    scope: Scope,
    request: () => { prompt: string; options: AgentCallOptions },
    handle?: { name: string; turn: number; configKey: string },
  ): Promise<JsonValue> {
    return this.#step(scope, site, async (key, occurrence) => {
      const { prompt, options: given } = request();
      if (handle === undefined) this.#deps.noteOptions?.(site, given);
      const options = this.#deps.adoptOptions?.(site, given) ?? given;
      const label = options.label ?? handle?.name ?? options.model ?? 'agent';
      const place = await this.#place(options, { scope: [...scope], site, occurrence, ...(handle ? { handle: handle.name } : {}) });
      const identity = {
        structuralPath: [...place.path],
        callSite: site,
        occurrence,
        ...(place.owner === undefined ? {} : { worktreeOwner: place.owner }),
        ...(handle ? { handle: handle.name, turn: handle.turn } : {}),
      };
      const env = createAgentEnv(this.#env, { agentId: key, path: place.path, label, handle: handle !== undefined, cwd: place.cwd });
      return runRecorded(env, { prompt, options, identity, configKey: handle?.configKey ?? key, agentId: key }, this.#deps.signal);
    });
  }
}
