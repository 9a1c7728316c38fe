/**
 * The remote `AgentTransport`: an attempt is sent to a DBOS queue under the
 * workflow ID `<run-id>/<identity>/<attempt>` with its frozen configuration
 * (session.ts does the sending and waiting). Skill, extension and tool
 * selectors resolve on the worker, against its own Pi agent dir. Custom
 * tools (the nested `agent` and `get_subagent_result` tools, setup hooks'
 * tools) run in the host: the attempt carries their definitions, the worker
 * offers proxies of them, and the session answers their calls (host-calls.ts).
 * A nested child's ceiling travels with its attempt.
 */
import { SettingsManager } from '@earendil-works/pi-coding-agent';
import { WorkflowError, resolveAgentDir, type AgentTransport, type AgentTransportContext, type CustomToolDefinition, type JsonValue, type SessionInput, type WorkflowSession } from '../../kernel/index.js';
import { runTranscriptDir } from '../../lib/transcripts/location.js';
import { ATTEMPT_FORMAT, attemptWorkflowId, identityKey, resultBranch, type AttemptRequest } from './attempt.js';
import { callLog, completionListener, dbosClient, notifications, turnLog, usageStore } from './dbos-client.js';
import { applyAgentCommit, baseRepository } from './git.js';
import { RemoteSession } from './session.js';
import { SETTINGS_KEY, type RemoteSettings } from './settings.js';
import { plannedTranscript } from './transcript.js';

export const TRANSPORT_NAME = 'remote';

export interface RemoteTransportOptions {
  readonly settings: RemoteSettings;
  /** How often the host reads an attempt's outcome; default 25 ms. */
  readonly pollMs?: number;
  /** How often the host reads a running attempt's finished turns; default 100 ms. */
  readonly turnPollMs?: number;
}

/** Setup hooks' extension factories and resource policies are host code and host state: a worker cannot run them. */
function unsupported(input: SessionInput): string | undefined {
  if ((input.extensionFactories ?? []).length > 0) return 'extension factories from a setup hook';
  if (input.resourcePolicy !== undefined && Object.keys(input.resourcePolicy).length > 0) return 'a setup hook resource policy';
  return undefined;
}

/** The custom tools the session offers (those `excludeTools` leaves), as the attempt carries them: without `execute`. */
function hostTools(input: SessionInput, excluded: readonly string[]): CustomToolDefinition[] {
  const dropped = new Set(excluded);
  return (input.customTools ?? []).filter((tool) => !dropped.has(tool.name));
}

/** The frozen settings without this plugin's own key: it names the database, which workers do not need. */
function forwardedSettings(settings: Readonly<Record<string, JsonValue>>): Readonly<Record<string, JsonValue>> {
  const copy: Record<string, JsonValue> = Object.create(null) as Record<string, JsonValue>;
  for (const [key, value] of Object.entries(settings)) if (key !== SETTINGS_KEY) copy[key] = value;
  return copy;
}

export function createRemoteTransport(options: RemoteTransportOptions): AgentTransport {
  const { settings } = options;
  const remoteUrls = new Map<string, string>();
  return {
    name: TRANSPORT_NAME,
    async createSession(input, context) {
      const why = unsupported(input);
      if (why !== undefined) throw new WorkflowError('AGENT_FAILED', `a remote agent cannot run with ${why}; exclude it with extensionSettings["${SETTINGS_KEY}"].agents`);
      return createRemoteSession(input, context, settings, { pollMs: options.pollMs ?? 25, turnPollMs: options.turnPollMs ?? 100 }, remoteUrls);
    },
  };
}

async function createRemoteSession(input: SessionInput, context: AgentTransportContext, settings: RemoteSettings, polls: { readonly pollMs: number; readonly turnPollMs: number }, remoteUrls: Map<string, string>): Promise<WorkflowSession> {
  const { prepared } = context;
  const repo = await baseRepository(input.cwd, settings.remote, remoteUrls);
  const workflowId = attemptWorkflowId(context.run.runId, context.identity, context.attempt);
  const agentDir = resolveAgentDir();
  const transcriptDir = runTranscriptDir({
    cwd: context.run.cwd,
    agentDir,
    configured: SettingsManager.create(context.run.cwd, agentDir, { projectTrusted: context.projectTrusted }).getSessionDir(),
    runId: context.run.runId,
  });
  const tools = hostTools(input, prepared.excludeTools);
  const request: Omit<AttemptRequest, 'prompt' | 'outputSchema'> = {
    format: ATTEMPT_FORMAT,
    workflowId,
    runId: context.run.runId,
    identity: context.identity,
    attempt: context.attempt,
    label: input.sessionLabel,
    model: input.model,
    ...(prepared.turnControl === undefined || prepared.turnControl === '' ? {} : { turnControl: prepared.turnControl }),
    ...(prepared.systemPrompt === undefined ? {} : { systemPrompt: prepared.systemPrompt }),
    ...((input.systemPromptAppend ?? prepared.systemPromptAppend) === undefined ? {} : { systemPromptAppend: input.systemPromptAppend ?? prepared.systemPromptAppend }),
    tools: [...input.tools],
    preparedTools: [...prepared.tools],
    ...(prepared.rootTools === undefined ? {} : { rootTools: [...prepared.rootTools] }),
    skills: [...prepared.skills],
    extensions: [...prepared.extensions],
    excludeTools: [...prepared.excludeTools],
    ...(prepared.contextFiles === undefined ? {} : { contextFiles: typeof prepared.contextFiles === 'boolean' ? prepared.contextFiles : [...prepared.contextFiles] }),
    ...(tools.length === 0 ? {} : { hostTools: tools.map(({ name, description, parameters }) => ({ name, description, parameters })) }),
    ...(input.ceiling === undefined ? {} : { ceiling: { tools: [...input.ceiling.tools], skills: [...input.ceiling.skills], extensions: [...input.ceiling.extensions] } }),
    settings: forwardedSettings(context.settings),
    projectTrusted: context.projectTrusted,
    repository: { remoteUrl: repo.remoteUrl, baseCommit: repo.baseCommit, subdirectory: repo.subdirectory, resultBranch: resultBranch(workflowId) },
  };
  return new RemoteSession({
    client: () => dbosClient(settings.database),
    usage: () => usageStore(settings.database),
    completions: () => completionListener(settings.database),
    turns: () => turnLog(settings.database),
    calls: () => callLog(settings.database),
    notifications: () => notifications(settings.database),
    hostTools: tools,
    queue: settings.queue,
    request,
    transcriptFile: plannedTranscript(transcriptDir, identityKey(context.identity)),
    applyCommit: (commit, baseCommit) => applyAgentCommit({ ...repo, baseCommit }, input.cwd, settings.remote, commit),
    pollMs: polls.pollMs,
    turnPollMs: polls.turnPollMs,
    signal: context.signal,
  });
}
