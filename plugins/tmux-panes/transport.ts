/**
 * The tmux pane `AgentTransport`: an attempt runs as an interactive `pi` in a
 * new background window of the host's tmux session, named after the agent's
 * label and run ID. The session is materialized here (window opened, the
 * pane's `pi` connected and said `hello`) before the engine persists its
 * reference `{ transport: 'tmux', socket, pane, window, sessionId,
 * sessionFile }`; a cold resume never reconnects it (spec 2), it starts a
 * new pane.
 *
 * `accepts` decides which prepared configurations a pane can reproduce with
 * `pi`'s command line: skill and extension selectors and context-file
 * selectors cannot be, so such agents stay with the next transport.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { SettingsManager } from '@earendil-works/pi-coding-agent';
import { WorkflowError, compileResultSchema, resolveAgentDir, isWorkflowError, messageOf, resultToolContract, type AgentTransport, type AgentTransportContext, type PreparedAgentSession, type SessionInput, type WorkflowSession } from '../../kernel/index.js';
import { PaneChannel } from './channel.js';
import { attemptFiles, launchEnv, launcherCommand, piArgs, writeAttemptFiles } from './launch.js';
import { PROTOCOL_VERSION, type PaneHello } from './protocol.js';
import { PaneSession, paneTool } from './session.js';
import { Tmux, type OpenedPane } from './tmux.js';
import { ensureRunTranscriptDir, runTranscriptDir } from '../../lib/transcripts/location.js';

export const TRANSPORT_NAME = 'tmux';

export interface TmuxTransportOptions {
  /** The host's tmux server and session (tmuxContext). */
  readonly socket: string;
  readonly session: string;
  /** The argv prefix of the user's `pi` (piCommand). */
  readonly pi: readonly string[];
  /** The tmux-panes entry file the pane's `pi` loads with `-e`. */
  readonly entry: string;
  /** How long the pane's `pi` may take to start and connect; default 60 s. */
  readonly helloTimeoutMs?: number;
  readonly env?: NodeJS.ProcessEnv;
}

const PLAIN_NAME = /^[A-Za-z0-9_.:-]+$/;

/** Whether `pi`'s command line can reproduce this prepared configuration. */
export function accepts(prepared: PreparedAgentSession): boolean {
  if (prepared.skills.length > 0 || prepared.extensions.length > 0) return false;
  if (Array.isArray(prepared.contextFiles)) return false;
  // Without the root's tools the selectors reach the pane as they are: only plain names can.
  return prepared.rootTools !== undefined || prepared.tools.every((name) => PLAIN_NAME.test(name));
}

/** The `--tools` allowlist: the concrete tools (or plain selectors) plus the session's own; undefined keeps pi's defaults. */
function allowlist(input: SessionInput, own: readonly string[]): string[] | undefined {
  if (input.tools.length === 0 && input.ceiling === undefined) return undefined;
  if (!input.tools.every((name) => PLAIN_NAME.test(name))) {
    throw new WorkflowError('AGENT_FAILED', `the tmux pane transport cannot pass the tool selectors ${JSON.stringify(input.tools)} to pi`);
  }
  const ceiling = input.ceiling?.tools;
  const tools = ceiling === undefined ? input.tools : input.tools.filter((name) => ceiling.includes(name));
  return [...new Set([...tools, ...own])];
}

function unsupported(input: SessionInput): string | undefined {
  if ((input.extensionFactories ?? []).length > 0) return 'extension factories from a setup hook';
  const policy = input.resourcePolicy;
  if (policy !== undefined && (policy['skills'] !== undefined || policy['extensions'] !== undefined)) return 'a setup hook resource policy for skills or extensions';
  if (input.ceiling !== undefined && (input.ceiling.skills.length > 0 || input.ceiling.extensions.length > 0)) return "a parent's skill or extension ceiling";
  return undefined;
}

export function createTmuxTransport(options: TmuxTransportOptions): AgentTransport {
  const tmux = new Tmux({ socket: options.socket });
  return {
    name: TRANSPORT_NAME,
    async createSession(input, context) {
      try {
        return await openPaneSession(tmux, input, context, options);
      } catch (error) {
        if (isWorkflowError(error)) throw error;
        throw new WorkflowError('AGENT_FAILED', `the tmux pane could not start: ${messageOf(error)}`, undefined, { cause: error });
      }
    },
  };
}

async function openPaneSession(tmux: Tmux, input: SessionInput, context: AgentTransportContext, options: TmuxTransportOptions): Promise<WorkflowSession> {
  const why = unsupported(input);
  if (why !== undefined) throw new WorkflowError('AGENT_FAILED', `the tmux pane transport cannot run an agent with ${why}`);
  const { prepared } = context;
  const excluded = new Set(prepared.excludeTools);
  const result = resultToolContract(input.options.outputSchema, input.resultTool);
  // A schema ajv cannot compile fails with INVALID_SCHEMA before any pane opens.
  compileResultSchema(result.valueSchema);
  const customTools = (input.customTools ?? []).filter((tool) => !excluded.has(tool.name));
  const own = [result.name, ...customTools.map((tool) => tool.name)];
  const files = attemptFiles();
  let channel: PaneChannel | undefined;
  let opened: OpenedPane | undefined;
  const close = async (): Promise<void> => {
    if (channel?.connected === true) channel.send({ type: 'shutdown' });
    await channel?.close();
    if (opened !== undefined) await tmux.killPane(opened.pane);
    files.remove();
  };
  try {
    const token = randomBytes(16).toString('hex');
    channel = await PaneChannel.listen(files.socket, token);
    const name = `${input.sessionLabel} ${context.run.runId}`;
    // The pane's pi writes its session where the Pi transport writes its agents' (lib/transcripts/location.ts).
    const agentDir = input.agentDir ?? resolveAgentDir();
    const sessionDir = runTranscriptDir({
      cwd: context.run.cwd,
      agentDir,
      configured: SettingsManager.create(context.run.cwd, agentDir, { projectTrusted: context.projectTrusted }).getSessionDir(),
      runId: context.run.runId,
      ...(options.env === undefined ? {} : { env: options.env }),
    });
    ensureRunTranscriptDir(sessionDir);
    const argv = piArgs({
      sessionDir,
      pi: options.pi,
      entry: options.entry,
      input,
      systemPrompt: prepared.systemPrompt,
      systemPromptAppend: input.systemPromptAppend ?? prepared.systemPromptAppend,
      contextFiles: prepared.contextFiles,
      tools: allowlist(input, own),
      excludeTools: prepared.excludeTools.filter((tool) => !own.includes(tool)),
      projectTrusted: context.projectTrusted,
      name,
    });
    writeAttemptFiles(
      files,
      { argv, env: launchEnv(options.env ?? process.env, files) },
      { version: PROTOCOL_VERSION, socket: files.socket, token, resultTool: paneTool(result), customTools: customTools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })) },
      context.settings,
    );
    let session: PaneSession | undefined;
    const early: { message?: Parameters<PaneSession['onMessage']>[0]; closed?: Error | true }[] = [];
    const hello = channel.hello({
      onMessage: (message) => (session === undefined ? early.push({ message }) : session.onMessage(message)),
      onClose: (error) => (session === undefined ? early.push({ closed: error ?? true }) : session.onClose(error)),
    });
    // Closing the channel rejects a hello nobody waits for yet (tmux failed to open the window): not an unhandled rejection.
    hello.catch(() => undefined);
    opened = await tmux.newWindow({ target: `${options.session}:`, name, cwd: input.cwd, command: launcherCommand(files.launch), detached: true, keepOnExit: true });
    const pane = opened;
    const said = await waitForHello(tmux, pane, hello, context.signal, options.helloTimeoutMs ?? 60_000);
    // The pane side read its configuration before it said hello.
    rmSync(files.pane, { force: true });
    const where = `${opened.pane} (window "${name}")`;
    session = new PaneSession({
      channel,
      hello: said,
      reference: Object.freeze({
        transport: TRANSPORT_NAME,
        via: 'tmux',
        socket: options.socket,
        pane: opened.pane,
        window: opened.window,
        label: input.sessionLabel,
        sessionId: said.sessionId,
        ...(said.sessionFile === undefined ? {} : { sessionFile: said.sessionFile }),
      }),
      defaultOutputSchema: input.options.outputSchema,
      resultOverride: input.resultTool,
      customTools,
      turnControl: prepared.turnControl,
      alive: async () => {
        const state = await tmux.paneState(pane.pane);
        return state !== undefined && !state.dead;
      },
      close,
      where,
    });
    for (const entry of early) {
      if (entry.message !== undefined) session.onMessage(entry.message);
      if (entry.closed !== undefined) session.onClose(entry.closed === true ? undefined : entry.closed);
    }
    return session;
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

/** The pane's `hello`, or a clear error: the pane's program ended first (its screen quoted), the run stopped, or time ran out. */
async function waitForHello(tmux: Tmux, pane: OpenedPane, hello: Promise<PaneHello>, signal: AbortSignal, timeoutMs: number): Promise<PaneHello> {
  const deadline = Date.now() + timeoutMs;
  let said: PaneHello | undefined;
  let failed: Error | undefined;
  hello.then(
    (value) => (said = value),
    (error: Error) => (failed = error),
  );
  for (;;) {
    if (said !== undefined) return said;
    if (failed !== undefined) throw failed;
    if (signal.aborted) throw new WorkflowError('CANCELLED', 'agent cancelled: the run was stopped');
    const state = await tmux.paneState(pane.pane);
    if (state === undefined || state.dead) {
      const screen = state === undefined ? '' : await tmux.capture(pane.pane).catch(() => '');
      throw new Error(`the pane's pi exited before it connected${screen.trim() === '' ? '' : `; the pane showed:\n${screen.trim()}`}`);
    }
    if (Date.now() > deadline) throw new Error(`the pane's pi did not connect within ${timeoutMs} ms`);
    await Promise.race([hello.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 100))]);
  }
}
