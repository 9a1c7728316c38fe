/**
 * A worker's proxies for the host's tools: the attempt carries each host
 * tool's definition (name, description, parameter schema; never code), and
 * the worker gives its Pi session a tool of that definition whose `execute`
 * records the call (call-log.ts) and waits for the host's answer: woken by
 * the answer's notification, reading the row again every `fallbackMs`. The
 * answer's text is the tool's result, as the host's `execute` made it; a
 * failed answer is the tool's error. A cancelled attempt aborts the session,
 * which aborts the wait. Calls past MAX_CALLS or with arguments past
 * MAX_ARGUMENT_BYTES fail here, unsent: the host would refuse them anyway.
 */
import type { CustomToolDefinition, JsonValue, ResolvedResources } from '../../kernel/index.js';
import type { HostToolDefinition } from './attempt.js';
import { MAX_CALLS, refusal } from './call-check.js';
import { ANSWER_CHANNEL, MAX_ARGUMENT_BYTES, type CallAnswer, type CallLog } from './call-log.js';
import { isConnectionError, pause } from './connection-errors.js';
import type { Notifications } from './notifications.js';

export interface ProxyContext {
  readonly workflowId: string;
  /** The execution's key (the usage tables'), known once the session exists. */
  execution(): string;
  /** What the session resolved: the ceiling of the children a call spawns. */
  resources(): ResolvedResources | undefined;
  readonly calls: () => Pick<CallLog, 'record' | 'answerOf'>;
  readonly answers: () => Pick<Notifications, 'arm' | 'listen'>;
  readonly fallbackMs?: number;
}

/** Retries `read` while the database is down; the wait ends when `signal` is aborted. */
async function retrying<T>(read: () => Promise<T>, signal: AbortSignal): Promise<T> {
  for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
    if (signal.aborted) throw new Error('the host tool call was cancelled');
    try {
      return await read();
    } catch (error) {
      if (!isConnectionError(error)) throw error;
      await pause(delay, signal);
    }
  }
}

export function proxyTools(definitions: readonly HostToolDefinition[], context: ProxyContext): CustomToolDefinition[] {
  let count = 0;
  const fallbackMs = context.fallbackMs ?? 1000;
  const answered = (answer: CallAnswer): string => {
    if (answer.failed) throw new Error(answer.text);
    return answer.text;
  };
  return definitions.map((definition) => ({
    name: definition.name,
    description: definition.description,
    parameters: definition.parameters,
    async execute(params: JsonValue, signal: AbortSignal): Promise<JsonValue> {
      count += 1;
      if (count > MAX_CALLS) return answered(refusal('TOOL_FAILED', `this remote attempt made more than ${MAX_CALLS} host tool calls; finish the task with the results you have`));
      const text = JSON.stringify(params);
      const bytes = Buffer.byteLength(text, 'utf8');
      if (bytes > MAX_ARGUMENT_BYTES) return answered(refusal('RPC_LIMIT_EXCEEDED', `the arguments of ${definition.name} are ${bytes} bytes, more than the ${MAX_ARGUMENT_BYTES} a remote agent's host tool call may carry; pass less (a file in the worktree, a shorter prompt)`));
      const resources = context.resources();
      const call = { workflowId: context.workflowId, execution: context.execution(), callId: `c${count}`, name: definition.name, arguments: text, resources: resources === undefined ? undefined : JSON.stringify(resources) };
      const id = await retrying(() => context.calls().record(call), signal);
      for (;;) {
        const armed = context.answers().arm(ANSWER_CHANNEL, String(id));
        try {
          const answer = await retrying(async () => {
            await context.answers().listen();
            return context.calls().answerOf(id);
          }, signal);
          if (answer !== undefined) return answered(answer);
          await armed.wait(signal, fallbackMs);
        } finally {
          armed.disarm();
        }
      }
    },
  }));
}
