/**
 * `wfcli doctor --agent-options <json> [--prompt <text>]`: one generically
 * prepared agent, inspected without any provider call.
 *
 * 1. The options go through the real preparation chain in `inspection` mode
 *    (`WorkflowEngine.inspectPreparation`): aliases, selectors, extension
 *    preparation hooks (a roles plugin's `role` included), exactly as launch
 *    inspection prepares static agent options. Setup hooks are per attempt
 *    and do not run.
 * 2. Core resolution: a Pi transport session is created for the prepared
 *    configuration and never prompted, which resolves the model, tools,
 *    skills, extensions and the full system prompt the agent would get; it
 *    is disposed at once.
 *
 * `resources.selectorSources` splits the prepared selector arrays into their
 * layers: global and project settings, what preparation hooks added, and the
 * call's own options.
 */
import { WorkflowError, callSelectors, isWorkflowError, messageOf, optionSelectors, type AgentPreparation, type JsonValue, type LoadedSettings, type PreparedAgentSession, type RunAccess } from '../kernel/index.js';
import type { DoctorDiagnostic, SelectorArraysJson } from './doctor-report.js';
import type { LocalPiSession } from './headless-host.js';

type Kind = keyof SelectorArraysJson;
const KINDS: readonly Kind[] = ['skills', 'extensions', 'tools'];

export interface SelectorLayersJson {
  readonly global: SelectorArraysJson;
  readonly project?: SelectorArraysJson;
  /** What preparation hooks (a role, an extension) added between settings and the call. */
  readonly preparation: SelectorArraysJson;
  readonly call: SelectorArraysJson;
}

export interface InspectedAgent {
  readonly options: Readonly<Record<string, JsonValue>>;
  readonly prompt?: string;
  readonly label: string;
  /** The concrete model, `provider/model:thinking`. */
  readonly model: string;
  readonly excludeTools: readonly string[];
  readonly contextFiles?: JsonValue;
  readonly systemPromptAppend?: string;
  /** The extension settings the agent gets, as prepared. */
  readonly settings: Readonly<Record<string, JsonValue>>;
  readonly resources: {
    readonly tools: readonly string[];
    readonly skills: readonly string[];
    readonly extensions: readonly string[];
    /** The prepared selector arrays by layer; `prepared` alone when they cannot be told apart (the selectors plugin is not loaded). */
    readonly selectorSources: SelectorLayersJson | { readonly prepared: SelectorArraysJson };
  };
  /** The full effective system prompt of the agent's session. */
  readonly systemPrompt?: string;
}

export type AgentInspection = InspectedAgent | { readonly options: Readonly<Record<string, JsonValue>>; readonly prompt?: string; readonly error: { readonly code: string; readonly message: string } };

/** Nothing may touch a run during inspection: there is none. */
const NO_RUN: RunAccess = {
  run: { runId: 'inspection', sessionId: 'inspection', cwd: '/' },
  runDir: '',
  workflowName: 'doctor',
  pluginState: () => undefined,
  setPluginState: () => {
    throw new WorkflowError('INTERNAL_ERROR', 'doctor inspects an agent without a run: nothing can be persisted');
  },
  recordEvent: () => undefined,
  activeMs: () => 0,
};

function startsWith(list: readonly string[], prefix: readonly string[]): boolean {
  return prefix.every((item, index) => list[index] === item);
}

/** The layers of one prepared array: settings first, the call last, hooks between. */
export function splitLayers(prepared: AgentPreparation, settings: LoadedSettings, options: Readonly<Record<string, JsonValue>>, cwd: string): SelectorLayersJson | undefined {
  const call = callSelectors(optionSelectors(options), cwd);
  const { global, project } = settings.selectorSources;
  const preparation: Record<Kind, string[]> = { skills: [], extensions: [], tools: [] };
  for (const kind of KINDS) {
    const head = [...global[kind], ...(project?.[kind] ?? [])];
    const all = prepared[kind];
    const tail = call[kind];
    if (all.length < head.length + tail.length || !startsWith(all, head) || !startsWith(all.slice(all.length - tail.length), tail)) return undefined;
    preparation[kind] = all.slice(head.length, all.length - tail.length);
  }
  const pick = (layer: SelectorArraysJson): SelectorArraysJson => ({ skills: [...layer.skills], extensions: [...layer.extensions], tools: [...layer.tools] });
  return { global: pick(global), ...(project === undefined ? {} : { project: pick(project) }), preparation, call: pick(call) };
}

/** The default model of the headless session, for an agent that names none. */
function defaultModel(local: LocalPiSession): string {
  const model = local.session.model;
  return model === undefined ? '' : `${model.provider}/${model.id}:${local.session.thinkingLevel}`;
}

export async function inspectAgent(local: LocalPiSession, options: Readonly<Record<string, JsonValue>>, prompt: string | undefined): Promise<{ inspection: AgentInspection; problems: DoctorDiagnostic[] }> {
  const { host } = local;
  const base = { options, ...(prompt === undefined ? {} : { prompt }) };
  try {
    const inspected = await host.engine.inspectPreparation(host.cwd, options);
    const prepared = inspected.prepared;
    if (prepared === undefined) throw new WorkflowError('INTERNAL_ERROR', 'the preparation returned nothing');
    const model = prepared.model ?? defaultModel(local);
    const label = prepared.label ?? (model.split('/').at(-1)?.split(':')[0] || 'agent');
    const signal = new AbortController().signal;
    const session: PreparedAgentSession = {
      model,
      tools: prepared.tools,
      skills: prepared.skills,
      extensions: prepared.extensions,
      excludeTools: [...new Set(prepared.excludeTools)],
      ...(prepared.systemPrompt === undefined ? {} : { systemPrompt: prepared.systemPrompt }),
      ...(prepared.systemPromptAppend === undefined ? {} : { systemPromptAppend: prepared.systemPromptAppend }),
      ...(prepared.contextFiles === false || Array.isArray(prepared.contextFiles) ? { contextFiles: prepared.contextFiles as boolean | readonly string[] } : {}),
    };
    const run = { cwd: host.cwd, sessionId: host.sessionId, runId: 'inspection' };
    const identity = { structuralPath: [], callSite: 'doctor', occurrence: 1 };
    // The transport the loaded plugins choose, as for a real attempt (pi-transport, unless another claims the agent).
    const transport = host.kernel.hooks.transport.select.call({ run, identity, label, settings: prepared.settings, prepared: session });
    if (transport === undefined) throw new WorkflowError('CONFIG_ERROR', 'no loaded plugin runs agents (is the pi-transport entry filtered out?)');
    const agent = await transport.createSession(
      { cwd: host.cwd, agentDir: host.agentDir, model, tools: prepared.tools, sessionLabel: label, settings: prepared.settings, options },
      {
        run: { ...run, workflow: { name: 'doctor' }, args: null, signal },
        settings: prepared.settings,
        identity,
        attempt: 1,
        signal,
        access: NO_RUN,
        prepared: session,
        projectTrusted: host.projectTrusted,
      },
    );
    let resources;
    let systemPrompt;
    try {
      resources = agent.resources?.() ?? { tools: [], skills: [], extensions: [] };
      systemPrompt = agent.systemPrompt?.();
    } finally {
      await agent.dispose();
    }
    const layers = splitLayers(prepared, inspected.settings, options, host.cwd);
    const inspection: InspectedAgent = {
      ...base,
      label,
      model,
      excludeTools: session.excludeTools,
      ...(prepared.contextFiles === undefined ? {} : { contextFiles: prepared.contextFiles }),
      ...(prepared.systemPromptAppend === undefined ? {} : { systemPromptAppend: prepared.systemPromptAppend }),
      settings: prepared.settings,
      resources: {
        tools: [...resources.tools],
        skills: [...resources.skills],
        extensions: [...resources.extensions],
        selectorSources: layers ?? { prepared: { skills: prepared.skills, extensions: prepared.extensions, tools: prepared.tools } },
      },
      ...(systemPrompt === undefined ? {} : { systemPrompt }),
    };
    const problems = inspected.warnings.map((message): DoctorDiagnostic => ({ code: 'AGENT_INSPECTION_WARNING', severity: 'warning', message }));
    return { inspection, problems };
  } catch (error) {
    const code = isWorkflowError(error) ? error.code : 'INTERNAL_ERROR';
    const message = messageOf(error);
    return { inspection: { ...base, error: { code, message } }, problems: [{ code, severity: 'error', message: `The agent options cannot be prepared: ${message}` }] };
  }
}
