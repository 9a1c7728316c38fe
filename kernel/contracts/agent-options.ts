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

/**
 * The part of a call's options the script computes, when launch inspection
 * checks only its literal properties: the keys with computed values, and
 * `open` when a spread or computed key (`...base`, `[k]: v`) may give any key
 * a value (literal properties after the last of them still hold).
 */
export interface ComputedOptions {
  readonly keys: readonly string[];
  readonly open: boolean;
}

/** Whether the call may give `key` a value the launch cannot see. */
export function mayBeComputed(computed: ComputedOptions | undefined, key: string): boolean {
  return computed !== undefined && (computed.open || computed.keys.includes(key));
}

export interface SendOptions {
  readonly outputSchema?: JsonSchema;
  readonly timeoutMs?: number;
}
