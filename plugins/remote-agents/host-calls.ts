/**
 * The host's side of a remote attempt's host tool calls (call-log.ts): while
 * the attempt runs, the host reads the calls its worker recorded, in order,
 * on each notification (and every `fallbackMs`, in case one was lost),
 * checks each (call-check.ts), runs the tool's `execute` in this process and
 * writes its answer. The tools are the session's own (`SessionInput
 * .customTools`): the nested `agent` and `get_subagent_result` tools of the
 * engine, which run children as the engine's agents under the parent's
 * identity, and setup hooks' tools.
 *
 * A call is the same call in every execution of the attempt when its tool
 * and argument text are the same and it is that execution's n-th such call
 * (the engine's call site and occurrence, applied to calls): it runs once,
 * and every row of it gets its answer. So an execution recovered from a dead
 * worker, which makes its calls again, is answered from the first
 * execution's calls instead of spawning its children twice.
 *
 * A host that resumed re-attaches to a running attempt and reads every call
 * from the start. An answered call of a tool that keeps host state the
 * journal rebuilds (`rerunOnReattach`: the engine's nested agent tools; a
 * child spawned by the dead host must exist again before the model can
 * collect it, and it replays rather than running twice) runs again without
 * being answered again; any other answered call keeps its stored answer and
 * does not run: a setup hook's tool never repeats its effect. Unanswered
 * calls are answered.
 *
 * Bounds: at most MAX_CALLS calls per attempt are read; the rest are refused
 * in one statement, unread. Reads are pages of PAGE rows.
 */
import { createHash } from 'node:crypto';
import { BOUNDARY_BYTES, boundaryText, messageOf, type CustomToolDefinition, type JsonValue, type ResolvedResources } from '../../kernel/index.js';
import { MAX_CALLS, checkCall, refusal, type OfferedTool } from './call-check.js';
import type { CallAnswer, CallLog, CallRow } from './call-log.js';
import { isConnectionError, pause } from './connection-errors.js';
import type { Armed } from './notifications.js';

const PAGE = 16;
/** An error a tool threw, as its answer: what the model sees of a local tool's error, bounded. */
const MAX_ERROR_CHARS = 64 * 1024;
const RETRY_CAP_MS = 2000;

export interface HostCallsOptions {
  readonly workflowId: string;
  readonly tools: ReadonlyMap<string, OfferedTool>;
  readonly log: () => Pick<CallLog, 'after' | 'answer' | 'answerAllAfter' | 'answerOf'>;
  /** Arms a wake-up for this workflow's next call (notifications.ts). */
  readonly arm: () => Armed;
  /** Settles once notifications are received: a call recorded after the next read still wakes the wait. */
  readonly listening: () => Promise<void>;
  /** Told the resources of the agent that made a call just before its tool runs: a nested child's ceiling. */
  readonly onCall: (resources: ResolvedResources | undefined) => void;
  readonly fallbackMs: number;
}

export class HostCalls {
  readonly #options: HostCallsOptions;
  /** Aborted when the attempt's turn ended: its tools in flight are cancelled, nothing more is answered. */
  readonly #abort = new AbortController();
  /** Each distinct call's answer, by its key (the digest of tool and arguments, and its occurrence). */
  readonly #calls = new Map<string, Promise<CallAnswer>>();
  readonly #occurrences = new Map<string, number>();
  #last = 0;
  #seen = 0;

  constructor(options: HostCallsOptions) {
    this.#options = options;
  }

  /** Follows the calls until `stop` is aborted; then tools still running get an aborted signal. */
  async follow(stop: AbortSignal): Promise<void> {
    let delay = 100;
    try {
      while (!stop.aborted) {
        const armed = this.#options.arm();
        try {
          await this.#options.listening();
          await this.read();
          delay = 100;
          await armed.wait(stop, this.#options.fallbackMs).catch(() => undefined);
        } catch {
          // The database is restarting: read again after a pause (the attempt's outcome wait deals with the rest).
          await pause(delay, stop);
          delay = Math.min(delay * 2, RETRY_CAP_MS);
        } finally {
          armed.disarm();
        }
      }
    } finally {
      this.#abort.abort();
    }
  }

  /** Reads and takes every call not seen yet. */
  async read(): Promise<void> {
    const { workflowId } = this.#options;
    for (;;) {
      if (this.#seen >= MAX_CALLS) {
        await this.#options.log().answerAllAfter(workflowId, this.#last, refusal('TOOL_FAILED', `this remote attempt made more than ${MAX_CALLS} host tool calls; finish the task with the results you have`));
        return;
      }
      const limit = Math.min(PAGE, MAX_CALLS - this.#seen);
      const rows = await this.#options.log().after(workflowId, this.#last, limit);
      for (const row of rows) this.#take(row);
      if (rows.length < limit) return;
    }
  }

  #take(row: CallRow): void {
    this.#last = Math.max(this.#last, row.id);
    this.#seen += 1;
    const checked = checkCall(row, this.#options.tools);
    if (!checked.ok) {
      if (!row.answered) void this.#write(row.id, checked.refusal);
      return;
    }
    const digest = createHash('sha256').update(`${row.name}\u0000${row.arguments ?? ''}`).digest('hex');
    const perExecution = `${row.execution}\u0000${digest}`;
    const occurrence = this.#occurrences.get(perExecution) ?? 0;
    this.#occurrences.set(perExecution, occurrence + 1);
    const key = `${digest}#${occurrence}`;
    let answer = this.#calls.get(key);
    if (answer === undefined) {
      if (row.answered && checked.tool.rerunOnReattach !== true) {
        // Answered before this host attached: the effect happened once; a later execution repeating the call gets the same answer.
        answer = this.#stored(row.id, checked.tool.name);
      } else {
        this.#options.onCall(checked.resources);
        // Started here, in the rows' order: the engine's tools number what they start (a child's `spawn:<n>`) as they are called.
        answer = this.#run(checked.tool, checked.params);
      }
      this.#calls.set(key, answer);
    }
    if (!row.answered) void answer.then((value) => this.#write(row.id, value));
  }

  /** The answer a call already has in the table. */
  async #stored(id: number, name: string): Promise<CallAnswer> {
    try {
      const stored = await this.#options.log().answerOf(id);
      if (stored !== undefined) return stored;
    } catch (error) {
      return refusal('TOOL_FAILED', `the host could not read the earlier answer of ${name}: ${messageOf(error)}; call it again`);
    }
    return refusal('TOOL_FAILED', `the earlier answer of ${name} is gone from the database; call it again`);
  }

  async #run(tool: CustomToolDefinition, params: JsonValue): Promise<CallAnswer> {
    try {
      const output = await tool.execute(params, this.#abort.signal);
      const text = typeof output === 'string' ? output : boundaryText(output, `the result of the host tool ${tool.name}`);
      if (Buffer.byteLength(text, 'utf8') > BOUNDARY_BYTES) return refusal('RPC_LIMIT_EXCEEDED', `the result of the host tool ${tool.name} is larger than the ${BOUNDARY_BYTES}-byte boundary`);
      return { failed: false, text };
    } catch (error) {
      return { failed: true, text: messageOf(error).slice(0, MAX_ERROR_CHARS) };
    }
  }

  /** Writes an answer, waiting out a restarting database; an answer Postgres cannot store (a NUL character) becomes a refusal. */
  async #write(id: number, answer: CallAnswer): Promise<void> {
    const signal = this.#abort.signal;
    for (let delay = 100, current = answer; !signal.aborted; delay = Math.min(delay * 2, RETRY_CAP_MS)) {
      try {
        await this.#options.log().answer(id, current);
        return;
      } catch (error) {
        if (!isConnectionError(error)) {
          if (current !== answer) return;
          current = refusal('TOOL_FAILED', `the host could not store the tool's answer: ${messageOf(error)}`);
          continue;
        }
        await pause(delay, signal);
      }
    }
  }
}
