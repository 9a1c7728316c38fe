/**
 * The Pi `AgentTransport`: each attempt is a fresh in-process Pi session
 * built with the SDK from the user's agent dir (models.json, auth.json,
 * settings, extensions) that writes its native session file (transcript.ts);
 * the engine persists the transport-neutral reference
 * `{ transport: 'pi', sessionId, sessionFile }` and never reconnects it.
 * Services come first, so a model from an extension's provider resolves like
 * a built-in one.
 *
 * Resources follow the agent's selectors, the root candidate set, a nested
 * child's ceiling and setup hooks' narrowing (`selection.ts`): skills and
 * extensions are filtered while the resource loader loads them, tools
 * through Pi's allowlist, which Pi also applies to tools registered later.
 * `resources()` reports what the session resolved.
 */
import path from 'node:path';
import { createAgentSessionFromServices, type SessionStartEvent } from '@earendil-works/pi-coding-agent';
import type { AgentTransport, AgentTransportContext, WorkflowSession } from '../../kernel/index.js';
import type { SessionInput } from '../../kernel/index.js';
import { WorkflowError, isWorkflowError, messageOf } from '../../kernel/index.js';
import { resolveAgentDir } from '../../kernel/index.js';
import { customPiTools } from './custom-tools.js';
import { resolveModel, type ResolvedModel } from './models.js';
import { createSessionServices } from './resources.js';
import { ResultToolController } from './result-tool.js';
import { builtinToolNames, checkCustomToolNames, extensionToolNames, loadedExtensionPaths, resolvedResources, rootToolCandidates, selectTools, skillNames } from './selection.js';
import { PiWorkflowSession, ProgressChannel } from './session.js';
import { TranscriptGuard, continuedManager, transcriptManager, writeTranscript } from './transcript.js';
import { runTranscriptDir } from '../../lib/transcripts/location.js';

export const TRANSPORT_NAME = 'pi';

export interface PiTransportOptions {
  /** Pi's agent dir; default `PI_CODING_AGENT_DIR` else `~/.pi/agent`. A setup hook's `SessionInput.agentDir` wins. */
  readonly agentDir?: string;
  /** Forces project trust for project settings and resources; default: Pi's trust store. */
  readonly projectTrusted?: boolean;
  /** Resume this native session file instead of starting a session (a remote handle's later turn, on a worker); Pi appends to it. */
  readonly continueSession?: string;
}

export function createPiTransport(options: PiTransportOptions = {}): AgentTransport {
  return {
    name: TRANSPORT_NAME,
    async createSession(input, context) {
      try {
        return await createPiSession(input, context, options);
      } catch (error) {
        if (isWorkflowError(error)) throw error;
        throw new WorkflowError('AGENT_FAILED', `the Pi session could not start: ${messageOf(error)}`, undefined, { cause: error });
      }
    },
  };
}

/**
 * `session_start` carries the frozen extension settings as `event.settings`
 * (spec 2 "Extension settings transport"); Pi's event type does not declare it.
 */
function startEvent(settings: AgentTransportContext['settings']): SessionStartEvent {
  const event = { type: 'session_start', reason: 'startup', settings };
  return event as SessionStartEvent;
}

/** A setup hook's `resourcePolicy` list of one kind (the extension-hooks plugin validated its shape). */
function policyList(input: SessionInput, kind: 'tools' | 'skills' | 'extensions'): readonly string[] | undefined {
  const list = input.resourcePolicy?.[kind];
  return Array.isArray(list) && list.every((entry) => typeof entry === 'string') ? (list as string[]) : undefined;
}

/**
 * What narrows the prepared tool selection: `input.tools` unless it is still
 * the prepared selector list itself, then a hook's `resourcePolicy.tools`.
 */
function toolNarrowing(input: SessionInput, context: AgentTransportContext): (readonly string[])[] {
  const { prepared } = context;
  const unchanged = prepared.rootTools === undefined && input.tools.length === prepared.tools.length && input.tools.every((entry, index) => entry === prepared.tools[index]);
  const policy = policyList(input, 'tools');
  return [...(unchanged ? [] : [input.tools]), ...(policy === undefined ? [] : [policy])];
}

/**
 * `prepared.tools` selects from the root candidate set met with the built-in
 * tools and the tools the loaded extensions registered, and `input.tools`
 * (setup hooks) narrows that; `prepared.skills` and `prepared.extensions`
 * meet the discovered skills and extension files, narrowed by a hook's
 * `resourcePolicy`. The result tool and the custom tools are the session's
 * own: always active unless excluded.
 */
async function createPiSession(input: SessionInput, context: AgentTransportContext, options: PiTransportOptions): Promise<WorkflowSession> {
  const { prepared } = context;
  const { ceiling } = input;
  const channel = new ProgressChannel();
  const resultTool = new ResultToolController({
    outputSchema: input.options.outputSchema,
    override: input.resultTool,
    hasResult: () => channel.result !== undefined,
    onResult: (value) => channel.emit({ type: 'result', value }),
  });
  const services = await createSessionServices({
    cwd: input.cwd,
    agentDir: path.resolve(input.agentDir ?? options.agentDir ?? resolveAgentDir()),
    // The run's trust decision wins; the plugin option serves transports used outside a run.
    projectTrusted: context.projectTrusted ?? options.projectTrusted,
    systemPrompt: prepared.systemPrompt,
    systemPromptAppend: input.systemPromptAppend ?? prepared.systemPromptAppend,
    ownExtensions: [resultTool.extension],
    extensionFactories: input.extensionFactories,
    skills: { selectors: prepared.skills, ceiling: ceiling?.skills, narrowing: policyList(input, 'skills') },
    extensions: { selectors: prepared.extensions, ceiling: ceiling?.extensions, narrowing: policyList(input, 'extensions') },
    contextFiles: prepared.contextFiles,
    signal: context.signal,
  });
  const resolved: ResolvedModel | undefined = input.model === '' ? undefined : resolveModel(services.modelRuntime, input.model);
  const excludeTools = prepared.excludeTools.filter((name) => name !== resultTool.name);
  const loaded = services.resourceLoader.getExtensions().extensions;
  const candidates = rootToolCandidates({
    builtins: builtinToolNames(input.cwd),
    extensionTools: extensionToolNames(loaded),
    rootTools: prepared.rootTools,
    defaultTools: services.settingsManager.getDefaultTools(),
  });
  const selection = selectTools({ candidates, own: [], selectors: prepared.tools, ceiling: ceiling?.tools, excludeTools, narrowing: toolNarrowing(input, context) });
  checkCustomToolNames((input.customTools ?? []).map((tool) => tool.name), candidates, selection.prepared);
  const customTools = customPiTools(input.customTools, excludeTools);
  const own = [resultTool.name, ...customTools.map((tool) => tool.name)];
  const tools = [...new Set([...selection.allowlist.filter((name) => !own.includes(name)), ...own])];
  const transcripts = runTranscriptDir({ cwd: context.run.cwd, agentDir: services.agentDir, configured: services.settingsManager.getSessionDir(), runId: context.run.runId });
  const sessionManager = options.continueSession === undefined ? transcriptManager(input.cwd, transcripts) : continuedManager(input.cwd, transcripts, options.continueSession);
  const { session } = await createAgentSessionFromServices({
    services,
    sessionManager,
    sessionStartEvent: startEvent(context.settings),
    ...(resolved === undefined ? {} : { model: resolved.model }),
    ...(resolved?.thinkingLevel === undefined ? {} : { thinkingLevel: resolved.thinkingLevel }),
    tools,
    excludeTools,
    customTools,
  });
  try {
    if (session.model === undefined) {
      throw new WorkflowError('UNKNOWN_MODEL', 'the agent names no model and the Pi agent dir has no default model', { agentDir: services.agentDir });
    }
    if (session.getToolDefinition(resultTool.name) !== resultTool.definition) {
      throw new WorkflowError('INVALID_METADATA', `a custom tool or extension already provides "${resultTool.name}"`, { tool: resultTool.name });
    }
    await session.bindExtensions({ mode: 'print' });
  } catch (error) {
    session.dispose();
    throw error;
  }
  let sessionFile: string;
  try {
    sessionFile = options.continueSession ?? writeTranscript(sessionManager);
  } catch (error) {
    await session.extensionRunner.emit({ type: 'session_shutdown', reason: 'quit' }).catch(() => undefined);
    session.dispose();
    throw error;
  }
  const transcript = new TranscriptGuard();
  transcript.install(sessionManager, sessionFile);
  return new PiWorkflowSession({
    native: session,
    sessionFile,
    transcript,
    channel,
    resultTool,
    defaultOutputSchema: input.options.outputSchema,
    turnControl: prepared.turnControl,
    resources: () =>
      resolvedResources(session.getActiveToolNames(), skillNames(session.resourceLoader.getSkills().skills), loadedExtensionPaths(session.resourceLoader.getExtensions().extensions)),
  });
}
