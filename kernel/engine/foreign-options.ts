/**
 * Agent options other runtimes give a meaning (`schema`, `continueFrom`,
 * `tier` ...). Spec 1 forwards unknown option keys to loaded extensions and
 * otherwise ignores them; a script written for another runtime would then
 * silently get text where it expects an object. So a key of this table that
 * no loaded plugin or preparation hook declares gets a warning naming our
 * equivalent, and a key a known plugin provides but this host did not load
 * (`isolation`, the worktrees plugin's) one naming that plugin: at launch for
 * the keys written in option literals (run events, the CLI's stderr, the
 * launch tool's result), and at run time for option objects built
 * dynamically (run events).
 */
import { CORE_AGENT_OPTIONS } from './ops/agent-options.js';
import type { Kernel } from '../kernel.js';
import { describeMissing } from '../plugin-set.js';
import type { WorkflowRegistryApi } from '../registry/index.js';
import { adoptSchema, SCHEMA_OPTION, schemaNote } from './schema-option.js';

const WORKTREE = 'run the agent inside withWorktree("name", () => agent(...)), which materializes a named git worktree for everything in the callback';
const THINKING = 'put the thinking level on the model: model: "provider/model:high" or "alias:high"';
const TURNS = 'continue a conversation with a handle: const dev = agent.create({ name: "dev" }); await dev.send("..."); await dev.send("...")';

/** Option name → what to write instead. */
export const FOREIGN_AGENT_OPTIONS: Readonly<Record<string, string>> = {
  jsonSchema: 'use outputSchema: { type: "object", ... }; the agent then returns a value of that shape (without it, it returns text)',
  responseFormat: 'use outputSchema: { type: "object", ... }; the agent then returns a value of that shape (without it, it returns text)',
  worktree: WORKTREE,
  retainWorktree: WORKTREE,
  continueFrom: TURNS,
  resume: TURNS,
  sessionId: TURNS,
  tier: 'name a model alias instead (settings modelAliases, e.g. model: "fast"); workflow_catalog lists the aliases',
  thinking: THINKING,
  reasoning: THINKING,
  effort: THINKING,
  name: 'use label for the display name (agent.create takes name, for a handle)',
  title: 'use label for the display name',
  description: 'use label for the display name',
  agentType: 'use role with the roles plugin, or label plus tools and model',
  subagent_type: 'use role with the roles plugin, or label plus tools and model',
  phase: 'call phase("name") before the agent call',
  timeout: 'use timeoutMs',
  retry: 'use retries',
  maxRetries: 'use retries',
  allowedTools: 'use tools (a selector list, e.g. ["!*", "read", "bash"]: "!*" first, then what the agent gets)',
  disallowedTools: 'use excludeTools',
  systemPrompt: 'put the instructions in the prompt, or use a role (roles plugin)',
  system: 'put the instructions in the prompt, or use a role (roles plugin)',
  cwd: 'agents run in the workflow directory or, inside withWorktree, in its worktree',
};

/** Option names the loaded plugins and the preparation hooks' options schemas declare. */
export function declaredAgentOptions(kernel: Kernel, registry: WorkflowRegistryApi, names: readonly string[]): ReadonlySet<string> {
  const declared = new Set<string>();
  for (const name of names) if (kernel.provider('agentOptions', name)?.loaded === true) declared.add(name);
  for (const hook of registry.preparationHooks()) {
    const properties = hook.optionsSchema?.['properties'];
    if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) for (const name of Object.keys(properties)) declared.add(name);
  }
  return declared;
}

/** The warning for one option name written at `sites`, or undefined when nothing is wrong. */
export function foreignOptionWarning(kernel: Kernel, declared: ReadonlySet<string>, name: string, sites: readonly string[]): string | undefined {
  if (CORE_AGENT_OPTIONS.includes(name) || declared.has(name)) return undefined;
  const where = sites.length === 0 ? '' : ` (at ${sites.join(', ')})`;
  const provider = kernel.provider('agentOptions', name);
  if (provider !== undefined && !provider.loaded) return `Agent option "${name}"${where} is read by ${describeMissing(provider)}: until then it is ignored`;
  if (name === SCHEMA_OPTION) return schemaNote(where);
  const instead = Object.hasOwn(FOREIGN_AGENT_OPTIONS, name) ? FOREIGN_AGENT_OPTIONS[name] : undefined;
  if (instead === undefined) return undefined;
  return `Agent option "${name}"${where} means nothing to this runtime or its loaded extensions and is ignored: ${instead}`;
}

/** The launch's warnings for the option names written in the script's agent calls (preflight `agentOptionKeys`). */
export function foreignOptionWarnings(kernel: Kernel, registry: WorkflowRegistryApi, keys: Readonly<Record<string, readonly string[]>>): string[] {
  const names = Object.keys(keys);
  const declared = declaredAgentOptions(kernel, registry, names);
  return names.flatMap((name) => foreignOptionWarning(kernel, declared, name, keys[name] ?? []) ?? []);
}

/**
 * Run-time warnings for option objects the launch could not read (built
 * dynamically): each option name and call site once per segment, as a
 * `warning` entry in the run's events. Names the launch warned about at
 * that site already are skipped.
 */
export class OptionNotes {
  readonly #kernel: Kernel;
  readonly #registry: WorkflowRegistryApi;
  readonly #warn: (message: string) => void;
  readonly #noted = new Set<string>();
  #launchKeys: Readonly<Record<string, readonly string[]>> = {};

  constructor(kernel: Kernel, registry: WorkflowRegistryApi, warn: (message: string) => void) {
    this.#kernel = kernel;
    this.#registry = registry;
    this.#warn = warn;
  }

  /** The option names the preflight found in literals, by site (warned about at launch). */
  set launchKeys(keys: Readonly<Record<string, readonly string[]>>) {
    this.#launchKeys = keys;
  }

  /** The options a call at `site` runs with: `schema` read as outputSchema unless a loaded extension reads it (schema-option.ts). */
  adopt<T extends Readonly<Record<string, unknown>>>(site: string, options: T): T {
    if (!Object.hasOwn(options, SCHEMA_OPTION) || declaredAgentOptions(this.#kernel, this.#registry, [SCHEMA_OPTION]).has(SCHEMA_OPTION)) return options;
    return adoptSchema(options, `agent at ${site}`);
  }

  note(site: string, options: Readonly<Record<string, unknown>>): void {
    for (const name of Object.keys(options)) {
      if (CORE_AGENT_OPTIONS.includes(name) || this.#launchKeys[name]?.includes(site)) continue;
      const id = `${name}\u0000${site}`;
      if (this.#noted.has(id)) continue;
      this.#noted.add(id);
      const warning = foreignOptionWarning(this.#kernel, declaredAgentOptions(this.#kernel, this.#registry, [name]), name, [site]);
      if (warning !== undefined) this.#warn(warning);
    }
  }
}
