/** Options of `agent(...)`, `agent.create(...)` and `handle.send(...)` (spec 1 "Agent options"). */
import type { JsonValue } from '../json.js';

/** The tool every agent submits its result through (spec 1, result contract). */
export const RESULT_TOOL_NAME = 'workflow_result';

export type JsonSchema = Readonly<Record<string, JsonValue>>;

export interface AgentCallOptions {
  readonly label?: string;
  readonly model?: string;
  readonly skills?: readonly string[];
  readonly extensions?: readonly string[];
  readonly tools?: readonly string[];
  readonly excludeTools?: readonly string[];
  readonly contextFiles?: JsonValue;
  readonly outputSchema?: JsonSchema;
  readonly retries?: number;
  readonly timeoutMs?: number;
  /** Unknown JSON keys are forwarded to extensions. */
  readonly [extensionKey: string]: JsonValue | undefined;
}

export interface SendOptions {
  readonly outputSchema?: JsonSchema;
  readonly timeoutMs?: number;
}
