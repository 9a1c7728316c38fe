/**
 * The workflow host process of the agent crash test (`agents.test.ts`):
 * launches the workflow (or resumes a run when given its id) with a fresh
 * kernel whose agents run on the REAL Pi transport, over the faux provider
 * registered in this process under the fixed API id the agent dir's
 * models.json declares. Reports on stdout, one line each:
 *
 *   RUN <runId> <runDir>     the run is executing (printed once launch/resume returned)
 *   OUTCOME <json>           the segment ended (RunOutcome)
 *   ERROR <json>             launch/resume threw ({ code, message })
 *
 * Every model request the faux provider serves appends one JSON line
 * `{ child, pid, prompt, model, reasoning }` to `requestLog` BEFORE it
 * answers, so the parent counts requests per prompt and per child. The answer
 * calls `workflow_result` with `<prompt>@<provider>/<model id>`; a request
 * whose prompt is `holdPrompt` never answers (the parent SIGKILLs this
 * process mid-turn), the others answer after `delayMs`.
 *
 * Node runs this file directly (type stripping); the kernel's relative `.js`
 * imports are mapped to their `.ts` sources by the resolve hook below.
 *
 * Usage: node test/crash/agent-child.ts '<json AgentChildConfig>'
 */
import '../../scripts/ts-resolve.mjs';

export interface AgentChildConfig {
  /** A name for this host process in the request log. */
  readonly child: string;
  readonly root: string;
  readonly agentDir: string;
  readonly home: string;
  readonly cwd: string;
  readonly script: string;
  /** Resume this run instead of launching a new one. */
  readonly runId?: string;
  /** The faux provider's API id and provider name (as declared in `<agentDir>/models.json`) and its model ids. */
  readonly api: string;
  readonly provider: string;
  readonly models: readonly string[];
  readonly requestLog: string;
  /** Requests for this prompt never answer. */
  readonly holdPrompt?: string;
  /** Delay before every other answer. */
  readonly delayMs: number;
}

const { appendFileSync } = await import('node:fs');
const { fauxAssistantMessage, fauxToolCall } = await import('@earendil-works/pi-ai');
const { registerFauxProvider } = await import('@earendil-works/pi-ai/compat');
const { createKernel } = await import('../../kernel/kernel.js');
const { WorkflowEngine } = await import('../../kernel/engine/engine.js');
const { aliasesPlugin } = await import('../../plugins/aliases/index.js');
const { createPiTransportPlugin, RESULT_TOOL_NAME } = await import('../../plugins/pi-transport/index.js');
type FauxResponseStep = import('@earendil-works/pi-ai').FauxResponseStep;

const { hostRun } = await import('./host.js');

const config = JSON.parse(process.argv[2] ?? '{}') as AgentChildConfig;

/** The text of the first user message: the agent's task. */
function promptOf(messages: readonly { role: string; content?: unknown }[]): string {
  const user = messages.find((message) => message.role === 'user');
  const content = user?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { text?: string }) => part.text ?? '').join('');
  return '';
}

const answer: FauxResponseStep = async (context, options, _state, model) => {
  const prompt = promptOf(context.messages as readonly { role: string; content?: unknown }[]);
  const reasoning = (options as { reasoning?: string } | undefined)?.reasoning ?? null;
  appendFileSync(config.requestLog, `${JSON.stringify({ child: config.child, pid: process.pid, prompt, model: `${model.provider}/${model.id}`, reasoning })}\n`);
  if (prompt === config.holdPrompt) await new Promise<never>(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, config.delayMs));
  return fauxAssistantMessage(fauxToolCall(RESULT_TOOL_NAME, { result: `${prompt}@${model.provider}/${model.id}` }), { stopReason: 'toolUse' });
};

const faux = registerFauxProvider({
  api: config.api,
  provider: config.provider,
  models: config.models.map((id) => ({ id, name: id, reasoning: true, contextWindow: 128000, maxTokens: 16384 })),
});
// One scripted step per request; far more than the workflow can make.
faux.setResponses(Array.from({ length: 64 }, () => answer));

const kernel = createKernel({ plugins: [aliasesPlugin, createPiTransportPlugin({ agentDir: config.agentDir })] });
const engine = new WorkflowEngine({ kernel, sessionId: 'agents', root: config.root, agentDir: config.agentDir, home: config.home });

try {
  await hostRun(engine, 'agents', config);
} finally {
  faux.unregister();
}
