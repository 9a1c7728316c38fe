/** Builds the `SessionInput` and transport context the engine would pass, for direct transport tests. */
import type { AgentCallOptions } from '../../kernel/contracts/agent-options.js';
import type { CustomToolDefinition, ResolvedResources, SessionInput } from '../../kernel/contracts/setup.js';
import type { AgentTransportContext } from '../../kernel/contracts/transport.js';
import type { JsonValue } from '../../kernel/json.js';
import { evaluateSelectors } from '../../kernel/settings/selector-eval.js';
import { memoryRunAccess } from './run-access.js';

export interface SessionSpec {
  readonly cwd: string;
  readonly model: string;
  /** Tool selectors (`input.tools` and `prepared.tools`). */
  readonly tools?: readonly string[];
  /** Skill selectors (`prepared.skills`). */
  readonly skills?: readonly string[];
  /** Extension selectors (`prepared.extensions`). */
  readonly extensions?: readonly string[];
  readonly excludeTools?: readonly string[];
  /** A nested child's parent ceiling. */
  readonly ceiling?: ResolvedResources;
  /**
   * The launching session's tools (`prepared.rootTools`). Given, `input.tools`
   * becomes what the engine passes then: the concrete names the selectors
   * keep of them, or `sessionTools` (a setup hook's list).
   */
  readonly rootTools?: readonly string[];
  /** `input.tools` as a setup hook left it (default: what the engine would pass). */
  readonly sessionTools?: readonly string[];
  /** A setup hook's `resourcePolicy`. */
  readonly resourcePolicy?: Readonly<Record<string, JsonValue>>;
  /** Context file selection (`prepared.contextFiles`). */
  readonly contextFiles?: boolean | readonly string[];
  readonly options?: AgentCallOptions;
  readonly turnControl?: string;
  readonly systemPromptAppend?: string;
  readonly customTools?: CustomToolDefinition[];
  readonly extensionFactories?: readonly unknown[];
  /** Frozen extension settings (`context.settings`). */
  readonly settings?: Readonly<Record<string, JsonValue>>;
  readonly signal?: AbortSignal;
}

export function sessionArgs(spec: SessionSpec): [SessionInput, AgentTransportContext] {
  const signal = spec.signal ?? new AbortController().signal;
  const tools = spec.tools ?? [];
  const settings = spec.settings ?? {};
  const excluded = new Set(spec.excludeTools ?? []);
  const resolved = spec.rootTools === undefined ? tools : evaluateSelectors(spec.rootTools, tools, 'tools', spec.ceiling?.tools).filter((name) => !excluded.has(name));
  const input: SessionInput = {
    cwd: spec.cwd,
    model: spec.model,
    tools: spec.sessionTools ?? resolved,
    sessionLabel: 'test-agent',
    settings,
    options: spec.options ?? {},
    ...(spec.customTools === undefined ? {} : { customTools: spec.customTools }),
    ...(spec.extensionFactories === undefined ? {} : { extensionFactories: spec.extensionFactories }),
    ...(spec.ceiling === undefined ? {} : { ceiling: spec.ceiling }),
    ...(spec.resourcePolicy === undefined ? {} : { resourcePolicy: spec.resourcePolicy }),
  };
  const context: AgentTransportContext = {
    run: { cwd: spec.cwd, sessionId: 's1', runId: 'r1', workflow: { name: 'test' }, args: null, signal },
    settings,
    identity: { structuralPath: ['agent:0'], callSite: 'agent:0', occurrence: 1 },
    attempt: 1,
    access: memoryRunAccess({ runId: 'r1', sessionId: 's1', cwd: spec.cwd }),
    signal,
    projectTrusted: true,
    prepared: {
      model: spec.model,
      tools,
      skills: spec.skills ?? [],
      extensions: spec.extensions ?? [],
      excludeTools: spec.excludeTools ?? [],
      ...(spec.systemPromptAppend === undefined ? {} : { systemPromptAppend: spec.systemPromptAppend }),
      ...(spec.turnControl === undefined ? {} : { turnControl: spec.turnControl }),
      ...(spec.contextFiles === undefined ? {} : { contextFiles: spec.contextFiles }),
      ...(spec.rootTools === undefined ? {} : { rootTools: spec.rootTools }),
    },
  };
  return [input, context];
}
