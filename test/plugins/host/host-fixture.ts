/**
 * Unit-test fixture of the host tools: a real engine (engine harness, echo
 * transport) behind a real HostSession, with small doubles of Pi's
 * ExtensionAPI and tool-call context. The real Pi session is exercised in
 * pi-session.test.ts.
 */
import type { ContextUsage, ExtensionAPI, ExtensionContext, ToolDefinition } from '@earendil-works/pi-coding-agent';
import { Ajv } from 'ajv';
import { expect } from 'vitest';
import type { TSchema } from 'typebox';
import type { JsonSchema, KernelPlugin } from '../../../kernel/index.js';
import { createHostPlugin } from '../../../plugins/host/plugin.js';
import { HostEngine } from '../../../plugins/host/host-engine.js';
import { HostSession } from '../../../plugins/host/host-session.js';
import { WorkflowTools, type WorkflowToolSpec } from '../../../plugins/host/tools/index.js';
import { ERROR_OUTPUT } from '../../../plugins/host/tools/schemas.js';
import { createHarness, deferred, type Harness } from '../../support/engine-harness.js';

export interface SentMessage {
  readonly message: { customType: string; content: unknown; display: boolean; details?: unknown };
  readonly options: unknown;
}

export interface FakePi {
  readonly api: ExtensionAPI;
  readonly sent: SentMessage[];
  /** Resolves at the next sendMessage. */
  nextMessage(): Promise<SentMessage>;
  activeTools: string[];
  /** What `getAllTools()` reports; by default the active tools as Pi 0.87 reports them (no `exposure`). */
  toolInfos: { readonly name: string; readonly exposure?: string }[] | undefined;
  readonly bus: { channel: string; data: unknown }[];
  readonly handlers: Map<string, ((event: unknown, ctx: unknown) => unknown)[]>;
  readonly tools: Map<string, ToolDefinition>;
  readonly commands: string[];
  /** Runs the handlers of `event.type` in order, as Pi's runner does. */
  emit(event: { readonly type: string; readonly [field: string]: unknown }, ctx: unknown): Promise<void>;
}

export function fakePi(): FakePi {
  let waiting = deferred<SentMessage>();
  const fake: FakePi = {
    sent: [],
    bus: [],
    handlers: new Map(),
    tools: new Map(),
    commands: [],
    async emit(event, ctx) {
      for (const handler of fake.handlers.get(event.type) ?? []) await handler(event, ctx);
    },
    activeTools: ['read', 'bash', 'edit', 'write', 'workflow', 'workflow_status'],
    toolInfos: undefined,
    nextMessage: () => waiting.promise,
    api: undefined as unknown as ExtensionAPI,
  };
  const api = {
    sendMessage(message: SentMessage['message'], options: unknown) {
      const sent = { message, options };
      fake.sent.push(sent);
      const current = waiting;
      waiting = deferred<SentMessage>();
      current.resolve(sent);
    },
    getActiveTools: () => [...fake.activeTools],
    getAllTools: () => fake.toolInfos ?? fake.activeTools.map((name) => ({ name })),
    getThinkingLevel: () => 'low',
    events: { emit: (channel: string, data: unknown) => void fake.bus.push({ channel, data }), on: () => () => undefined },
    on(event: string, handler: (event: unknown, ctx: unknown) => unknown) {
      fake.handlers.set(event, [...(fake.handlers.get(event) ?? []), handler]);
      return () => undefined;
    },
    registerTool: (tool: ToolDefinition) => void fake.tools.set(tool.name, tool),
    registerCommand: (name: string) => void fake.commands.push(name),
  };
  return Object.assign(fake, { api: api as unknown as ExtensionAPI });
}

export function fakeContext(cwd: string, usage?: ContextUsage): ExtensionContext {
  return {
    cwd,
    model: { provider: 'faux', id: 'faux-1', input: ['text'] },
    sessionManager: { getSessionId: () => 's1', getSessionFile: () => undefined },
    hasUI: false,
    mode: 'print',
    isProjectTrusted: () => true,
    getContextUsage: () => usage,
  } as unknown as ExtensionContext;
}

export interface HostFixture {
  readonly harness: Harness;
  /** The harness's engine, as the host's. */
  readonly engine: HostEngine;
  readonly host: HostSession;
  readonly pi: FakePi;
  readonly ctx: ExtensionContext;
  readonly tools: WorkflowTools;
  /** Runs a tool as Pi would: details on success; a rejection carries the `tool_result` details. */
  call<P extends TSchema>(spec: WorkflowToolSpec<P>, params: unknown, options?: { ctx?: ExtensionContext; signal?: AbortSignal }): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

let callCounter = 0;

export function createHostFixture(options: { plugins?: readonly KernelPlugin[]; projectTrusted?: boolean } = {}): HostFixture {
  const pi = fakePi();
  let host: HostSession | undefined;
  const harness = createHarness({
    plugins: [...(options.plugins ?? []), createHostPlugin({ eventBus: () => pi.api.events, tools: () => host, rootModel: () => host?.rootModel(), rootTools: () => host?.rootTools() })],
  });
  const ctx = fakeContext(harness.cwd);
  // The host's engine over the harness's kernel and storage (closed with the harness).
  // Pi trusts a project with nothing trust-requiring in it, like the harness's.
  const projectTrusted = options.projectTrusted ?? true;
  const trust = { cwd: harness.cwd, state: projectTrusted ? 'trusted' : 'untrusted', decidedBy: 'stored', files: [] } as const;
  const engine = new HostEngine({ kernel: harness.kernel, sessionId: harness.sessionId, root: harness.root, agentDir: harness.agentDir, home: harness.home, trust });
  harness.engines.push(engine);
  harness.engine = engine;
  host = new HostSession({
    pi: pi.api,
    ctx,
    engine,
    cwd: harness.cwd,
    sessionId: harness.sessionId,
    agentDir: harness.agentDir,
    kernel: harness.kernel,
  });
  const session = host;
  const tools = new WorkflowTools(pi.api, () => session);
  return {
    harness,
    engine,
    host: session,
    pi,
    ctx,
    tools,
    async call(spec, params, callOptions = {}) {
      const definition = tools.define(spec);
      const toolCallId = `call-${++callCounter}`;
      let result: Awaited<ReturnType<typeof definition.execute>>;
      try {
        result = await definition.execute(toolCallId, params as never, callOptions.signal, undefined, callOptions.ctx ?? ctx);
      } catch (error) {
        const [handler] = pi.handlers.get('tool_result') ?? [];
        const patched = (await handler?.({ type: 'tool_result', toolCallId, isError: true }, ctx)) as { details?: unknown } | undefined;
        expectValid(ERROR_OUTPUT, patched?.details);
        throw Object.assign(error as Error, { details: patched?.details });
      }
      expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(result.details, null, 2) }]);
      expectValid(definition.outputSchema, result.details);
      return result.details as Record<string, unknown>;
    },
    async close() {
      host?.close();
      await harness.close();
    },
  };
}

export function expectValid(schema: JsonSchema, value: unknown): void {
  const validate = new Ajv({ strict: true, allErrors: true }).compile(schema);
  if (!validate(value)) throw new Error(`not valid against the output schema: ${JSON.stringify(validate.errors)}\n${JSON.stringify(value)}`);
}

/** The `details.error` of a failed tool call. */
/** `message` is the error text Pi shows (code first); `code`, `details` come from the result details. */
export async function toolError(promise: Promise<unknown>): Promise<{ message: string; code: string; details?: unknown }> {
  try {
    await promise;
  } catch (error) {
    const { message, details } = error as { message: string; details: { error: { code: string; message: string; details?: unknown } } };
    expect(message.startsWith(`${details.error.code}: `)).toBe(true);
    return { ...details.error, message };
  }
  throw new Error('expected the tool call to fail');
}
