/**
 * A real in-process Pi AgentSession (SDK) with the workflow host extension
 * and the feature plugin entries loaded as inline factories (the host builds
 * its kernel from what the entries contributed), over a temporary faux agent dir. One faux
 * provider serves both the main session and the workflow agents, so replies
 * are routed by who asks: a request that declares `workflow_result` comes
 * from a workflow agent, any other from the main session.
 */
import { join } from 'node:path';
import { fauxAssistantMessage, fauxText, fauxToolCall, getCurrentTools, type AssistantMessage, type TranscriptContext } from '@earendil-works/pi-ai';
import {
  ProjectTrustStore,
  SessionManager,
  SettingsManager,
  createAgentSessionFromServices,
  createAgentSessionServices,
  hasTrustRequiringProjectResources,
  type AgentSession,
  type ExtensionFactory,
  type ExtensionUIContext,
} from '@earendil-works/pi-coding-agent';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { RESULT_TOOL_NAME } from '../../../kernel/index.js';
import { createWorkflowHost } from '../../../src/index.js';
import { createFauxAgentDir, type FauxAgentDir } from '../../support/pi-agent-dir.js';
import { pluginEntries } from '../../support/plugin-entries.js';

export type Reply = (context: TranscriptContext) => AssistantMessage;

export interface Script {
  /** Replies of the main session, in order. */
  readonly main: Reply[];
  /** Replies of workflow agents, in order. */
  readonly agents: Reply[];
  /** How many requests each side made. */
  readonly asked: { main: number; agents: number };
}

/** Routes every faux request to the next main or agent reply. */
export function scriptFaux(dir: FauxAgentDir): Script {
  const script: Script = { main: [], agents: [], asked: { main: 0, agents: 0 } };
  const route = (context: TranscriptContext): AssistantMessage => {
    const agent = getCurrentTools(context.messages).some((tool) => tool.name === RESULT_TOOL_NAME);
    script.asked[agent ? 'agents' : 'main'] += 1;
    const reply = (agent ? script.agents : script.main).shift();
    if (!reply) throw new Error(`no scripted ${agent ? 'agent' : 'main session'} reply left`);
    return reply(context);
  };
  dir.faux.setResponses(Array.from({ length: 64 }, () => route));
  return script;
}

export const callTool = (name: string, args: Parameters<typeof fauxToolCall>[1]): Reply => () => fauxAssistantMessage(fauxToolCall(name, args), { stopReason: 'toolUse' });
export const say = (text: string): Reply => () => fauxAssistantMessage(fauxText(text));
export const submit = (result: string): Reply => callTool(RESULT_TOOL_NAME, { result });

/** The details of the last tool result the model saw (the tools put the same JSON in the text). */
export function lastToolResult(context: TranscriptContext): Record<string, unknown> {
  const last = [...context.messages].reverse().find((message) => message.role === 'toolResult');
  if (!last || last.role !== 'toolResult') throw new Error('no tool result yet');
  const text = last.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  return JSON.parse(text) as Record<string, unknown>;
}

export interface HostedSession {
  readonly session: AgentSession;
  /** Sends a prompt and waits until Pi settles (follow-ups included, when `until` resolves first). */
  prompt(text: string, until?: Promise<unknown>): Promise<void>;
  /** Emits session_shutdown like Pi does on quit, then disposes the session. */
  close(): Promise<void>;
}

export interface HostedSessionOptions {
  /** Pi's trust decision for the project (true: as `--approve`); default the one Pi reaches without asking. */
  readonly trusted?: boolean;
  readonly sessionManager?: SessionManager;
  readonly extensions?: ExtensionFactory[];
  /** Plugins whose entries are left out (as a package filter would). */
  readonly without?: readonly string[];
  /** Prompt template files or directories to load (as a package's `pi.prompts` would). */
  readonly promptTemplates?: readonly string[];
  /** A UI whose dialogs answer nothing, as an RPC client that shows none: the session has UI, so checkpoints may run. */
  readonly silentUi?: boolean;
}

/** Every member of Pi's UI context, each doing nothing (Pi's own no-op context is not exported). */
const SILENT_UI = {
  select: async () => undefined,
  confirm: async () => false,
  input: async () => undefined,
  notify: () => {},
  onTerminalInput: () => () => {},
  setStatus: () => {},
  setWorkingMessage: () => {},
  setWorkingVisible: () => {},
  setWorkingIndicator: () => {},
  setHiddenThinkingLabel: () => {},
  setWidget: () => {},
  setFooter: () => {},
  setHeader: () => {},
  setTitle: () => {},
  custom: async () => undefined,
  pasteToEditor: () => {},
  setEditorText: () => {},
  getEditorText: () => '',
  editor: async () => undefined,
  addAutocompleteProvider: () => {},
  setEditorComponent: () => {},
  getEditorComponent: () => undefined,
  getAllThemes: () => [],
  getTheme: () => undefined,
  setTheme: () => ({ success: false, error: 'UI not available' }),
  getToolsExpanded: () => false,
  setToolsExpanded: () => {},
} as unknown as ExtensionUIContext;

export async function startHostedSession(dir: FauxAgentDir, options: HostedSessionOptions = {}): Promise<HostedSession> {
  // Without an explicit decision, the one `pi -p` reaches on its own (trusted when nothing of Pi's in the project needs trust).
  const piTrusted = options.trusted ?? (!hasTrustRequiringProjectResources(dir.cwd) || new ProjectTrustStore(dir.agentDir).get(dir.cwd) === true);
  const settingsManager = SettingsManager.create(dir.cwd, dir.agentDir, { projectTrusted: piTrusted });
  // `trusted: true` is `pi --approve` (the embedder's flag); `trusted: false` is Pi's own "not trusted".
  const host = createWorkflowHost({ agentDir: dir.agentDir, root: join(dir.root, 'runs'), home: dir.root, ...(options.trusted === true ? { trust: true } : {}) });
  const services = await createAgentSessionServices({
    cwd: dir.cwd,
    agentDir: dir.agentDir,
    settingsManager,
    resourceLoaderOptions: {
      extensionFactories: [host, ...pluginEntries(options.without), ...(options.extensions ?? [])],
      ...(options.promptTemplates === undefined ? {} : { additionalPromptTemplatePaths: [...options.promptTemplates] }),
    },
  });
  const model = services.modelRuntime.getModel(dir.provider, 'faux-1');
  const { session } = await createAgentSessionFromServices({
    services,
    sessionManager: options.sessionManager ?? SessionManager.inMemory(dir.cwd),
    ...(model === undefined ? {} : { model }),
  });
  // A session that outlives its prompt, without UI, as Pi's RPC mode is (print mode ends with the prompt: tested in e2e).
  await session.bindExtensions({ mode: 'rpc', ...(options.silentUi === true ? { uiContext: SILENT_UI } : {}) });
  let closed = false;
  return {
    session,
    async prompt(text, until) {
      await session.prompt(text);
      if (until) await until;
      await session.waitForIdle();
    },
    async close() {
      if (closed) return;
      closed = true;
      await session.extensionRunner.emit({ type: 'session_shutdown', reason: 'quit' });
      session.dispose();
    },
  };
}

/** The tool results of one tool in a session's transcript, in order. */
export function toolResults(messages: AgentSession['messages'], toolName: string) {
  return messages.flatMap((message) => (message.role === 'toolResult' && message.toolName === toolName ? [message] : []));
}

export interface HostedSuite {
  readonly dir: FauxAgentDir;
  /** This test's scripted replies. */
  readonly script: Script;
  /** A hosted session, closed after the test. */
  start(options?: HostedSessionOptions): Promise<HostedSession>;
}

/** For a test file: one faux agent dir, a fresh script per test, hosted sessions closed after each test. */
export function useHostedSessions(): HostedSuite {
  let dir: FauxAgentDir | undefined;
  let script: Script | undefined;
  const open: HostedSession[] = [];
  beforeAll(() => {
    dir = createFauxAgentDir();
  });
  afterAll(() => dir?.close());
  beforeEach(() => {
    script = scriptFaux(suite.dir);
  });
  afterEach(async () => {
    for (const hosted of open.splice(0)) await hosted.close();
  });
  const suite: HostedSuite = {
    get dir() {
      if (dir === undefined) throw new Error('the faux agent dir is made in beforeAll');
      return dir;
    },
    get script() {
      if (script === undefined) throw new Error('the script is made in beforeEach');
      return script;
    },
    async start(options = {}) {
      const hosted = await startHostedSession(suite.dir, options);
      open.push(hosted);
      return hosted;
    },
  };
  return suite;
}
