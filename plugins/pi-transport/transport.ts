/**
 * The Pi `AgentTransport`: each attempt is a fresh in-process Pi session
 * built with the SDK from the user's agent dir (models.json, auth.json,
 * settings, extensions) and kept in memory; the engine persists only the
 * transport-neutral reference `{ transport: 'pi', sessionId }`. Services come
 * first, so a model from an extension's provider resolves like a built-in one.
 */
import path from 'node:path';
import { SessionManager, createAgentSessionFromServices, type SessionStartEvent, type ToolDefinition } from '@earendil-works/pi-coding-agent';
import type { AgentTransport, AgentTransportContext, WorkflowSession } from '../../kernel/index.js';
import type { SessionInput } from '../../kernel/index.js';
import { WorkflowError, isWorkflowError, messageOf } from '../../kernel/index.js';
import { resolveAgentDir } from '../../kernel/index.js';
import { customPiTools } from './custom-tools.js';
import { resolveModel, type ResolvedModel } from './models.js';
import { createSessionServices } from './resources.js';
import { createResultTool } from './result-tool.js';
import { PiWorkflowSession, ProgressChannel } from './session.js';

export const TRANSPORT_NAME = 'pi';

export interface PiTransportOptions {
  /** Pi's agent dir; default `PI_CODING_AGENT_DIR` else `~/.pi/agent`. A setup hook's `SessionInput.agentDir` wins. */
  readonly agentDir?: string;
  /** Forces project trust for project settings and resources; default: Pi's trust store. */
  readonly projectTrusted?: boolean;
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

/** The active tool allowlist: `input.tools` plus the session's own tools; none means Pi's defaults. */
function allowedTools(tools: readonly string[], own: readonly ToolDefinition[]): string[] | undefined {
  if (tools.length === 0) return undefined;
  return [...new Set([...tools, ...own.map((tool) => tool.name)])];
}

async function createPiSession(input: SessionInput, context: AgentTransportContext, options: PiTransportOptions): Promise<WorkflowSession> {
  const { prepared } = context;
  const services = await createSessionServices({
    cwd: input.cwd,
    agentDir: path.resolve(input.agentDir ?? options.agentDir ?? resolveAgentDir()),
    // The run's trust decision wins; the plugin option serves transports used outside a run.
    projectTrusted: context.projectTrusted ?? options.projectTrusted,
    systemPrompt: prepared.systemPrompt,
    systemPromptAppend: input.systemPromptAppend ?? prepared.systemPromptAppend,
    extensionFactories: input.extensionFactories,
    signal: context.signal,
  });
  const resolved: ResolvedModel | undefined = input.model === '' ? undefined : resolveModel(services.modelRuntime, input.model);
  const channel = new ProgressChannel();
  const resultTool = createResultTool({
    outputSchema: input.options.outputSchema,
    override: input.resultTool,
    hasResult: () => channel.result !== undefined,
    onResult: (value) => channel.emit({ type: 'result', value }),
  });
  const excludeTools = prepared.excludeTools.filter((name) => name !== resultTool.name);
  const customTools = [resultTool, ...customPiTools(input.customTools, excludeTools)];
  const tools = allowedTools(input.tools, customTools);
  const { session } = await createAgentSessionFromServices({
    services,
    sessionManager: SessionManager.inMemory(input.cwd),
    sessionStartEvent: startEvent(context.settings),
    ...(resolved === undefined ? {} : { model: resolved.model }),
    ...(resolved?.thinkingLevel === undefined ? {} : { thinkingLevel: resolved.thinkingLevel }),
    ...(tools === undefined ? {} : { tools }),
    excludeTools,
    customTools,
  });
  try {
    if (session.model === undefined) {
      throw new WorkflowError('UNKNOWN_MODEL', 'the agent names no model and the Pi agent dir has no default model', { agentDir: services.agentDir });
    }
    await session.bindExtensions({ mode: 'print' });
  } catch (error) {
    session.dispose();
    throw error;
  }
  return new PiWorkflowSession({ native: session, channel, resultToolName: resultTool.name, turnControl: prepared.turnControl });
}
