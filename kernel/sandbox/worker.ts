/**
 * The sandbox process: a Node process of its own (started by pool.ts under
 * Node's permission model, with a hard heap ceiling) that locks its realm
 * down with ses and evaluates one workflow program in a hardened
 * Compartment. It reads the host's messages on stdin and writes its own on
 * stdout, one JSON text per line; the script has no console, and the
 * process's own console writes to stderr.
 *
 * The program is evaluated as the body of a strict function called with an
 * undefined `this`, and the call-site marker is that function's parameter:
 * no global, no `this`, no `arguments` of the script reaches it.
 *
 * From source (tests) Node runs this file with type stripping; the resolve
 * hook in scripts/ts-resolve.mjs maps its relative `.js` imports to `.ts`.
 */
import { finishCodeCache } from './load-ses.js';
import { Console } from 'node:console';
import { encodeJson } from '../json-encode.js';
import { startTracking, wrapJoins } from './causality.js';
import { Calls, nondeterministic } from './calls.js';
import type { IdleState } from './deliveries.js';
import { LineReader } from './lines.js';
import type { HostMessage, SourcePosition, StartMessage, WorkerMessage } from './protocol.js';
import { buildScriptGlobals } from './script-globals.js';
import { boundaryError, errorPayload, type ScriptError } from './script-errors.js';

declare const lockdown: (options?: Record<string, string>) => void;
declare const harden: <T>(value: T) => T;
/** ses's reader of an error's stack in the start compartment. */
declare const getStackString: ((error: Error) => string) | undefined;
declare class Compartment {
  constructor(options: { globals: Record<string, unknown>; __options__: true });
  readonly globalThis: Record<string, unknown>;
  evaluate(source: string): unknown;
}

// Stdout carries the protocol; anything that logs (ses warnings) goes to stderr.
globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
wrapJoins();
lockdown({ errorTaming: 'safe', overrideTaming: 'severe', consoleTaming: 'safe', stackFiltering: 'concise' });
// Before 'ready': the code cache's pipes are closed before any script can arrive.
finishCodeCache();
startTracking();

/** The host's messages are small but `start` carries the replay table: no line limit on this side. */
const UNLIMITED = Number.MAX_SAFE_INTEGER;
const MAX_DETAILS_BYTES = 64 * 1024;

let settled = false;
let calls: Calls | undefined;

/**
 * Messages the host only books (replays answered here, notes) are batched:
 * each write to the pipe wakes the host, and a write per replayed operation
 * would make the two processes take turns. They go out in order, before any
 * message that needs an answer, within a few milliseconds, or once 64 KB
 * piled up. Writes are synchronous on a pipe, so a script that floods the
 * host blocks here instead of buffering.
 */
const BATCH_BYTES = 64 * 1024;
const BATCH_MS = 2;
let batch: string[] = [];
let batchBytes = 0;
let batchTimer: NodeJS.Timeout | undefined;

function flush(): void {
  if (batchTimer !== undefined) clearTimeout(batchTimer);
  batchTimer = undefined;
  if (batch.length === 0) return;
  const text = batch.join('');
  batch = [];
  batchBytes = 0;
  process.stdout.write(text);
}

/** Queues a message the host only books. */
function queueLine(line: string): void {
  batch.push(`${line}\n`);
  batchBytes += line.length + 1;
  if (batchBytes > BATCH_BYTES) flush();
  else batchTimer ??= setTimeout(flush, BATCH_MS);
}

/** Sends a message now, after everything queued before it. */
function postLine(line: string): void {
  batch.push(`${line}\n`);
  flush();
}

function post(message: WorkerMessage): void {
  postLine(JSON.stringify(message));
}

function detailsOf(details: unknown): Record<string, unknown> | undefined {
  if (details === undefined || details === null || typeof details !== 'object') return undefined;
  const encoded = encodeJson(details, { maxBytes: MAX_DETAILS_BYTES });
  return encoded.ok ? (JSON.parse(encoded.text) as Record<string, unknown>) : undefined;
}

function settleLine(line: string): void {
  if (settled) return;
  settled = true;
  calls?.stop();
  postLine(line);
}

function settle(message: WorkerMessage): void {
  settleLine(JSON.stringify(message));
}

/** A broken rule or a diverged replay ends the script at once, whatever the script catches. */
function fatal(error: ScriptError): never {
  settle({ t: 'failed', error: errorPayload(error, detailsOf) });
  throw error;
}

function onIdle(state: IdleState): void {
  if (settled) return;
  if (state.missing) {
    const { missing } = state;
    // The key is `<scope>|<site>#<occurrence>`.
    const site = missing.key.slice(missing.key.lastIndexOf('|') + 1, missing.key.lastIndexOf('#'));
    try {
      fatal(nondeterministic(missing, { key: missing.key, site, op: missing.op }, `the journal's next operation ${missing.call ?? missing.op} was never called`));
    } catch {
      // reported
    }
    return;
  }
  // The script can only wait on results; with none coming and none to deliver it never settles.
  if (!state.replaying && state.waiting === 0) settle({ t: 'stalled' });
}

/** Length of the text evaluated before the program on its first line. */
let headLength = 0;

/**
 * Where the script was when it threw: the innermost frame of the evaluated
 * program in the error's stack (the realm hides stacks from the script; the
 * start compartment reads them with ses's getStackString). Frames of the
 * sandbox's own code are files; the program's are `<anonymous>`.
 */
function scriptPosition(error: unknown): { at?: SourcePosition } {
  if (!(error instanceof Error) || typeof getStackString !== 'function') return {};
  let stack: string;
  try {
    stack = getStackString(error);
  } catch {
    return {};
  }
  for (const frame of stack.split('\n')) {
    const found = /<anonymous>:(\d+):(\d+)\)$/.exec(frame.trim());
    if (found === null) continue;
    const line = Number(found[1]);
    const column = Number(found[2]) - (line === 1 ? headLength : 0);
    return line >= 1 && column >= 1 ? { at: { line, column } } : {};
  }
  return {};
}

function start(message: StartMessage): void {
  calls = new Calls({ post: postLine, queue: queueLine, fatal, maxValueBytes: message.maxValueBytes, replay: message.replay }, onIdle);
  let completion: Promise<unknown>;
  try {
    const { globals, marker } = buildScriptGlobals({ calls, post: queueLine, sites: message.sites, args: message.args, globals: message.globals, promptSyntax: message.promptSyntax });
    const compartment = new Compartment({ globals: harden(globals), __options__: true });
    harden(compartment.globalThis);
    const head = `(function () { 'use strict'; return (${message.marker}) => `;
    headLength = head.length;
    const wrapper = compartment.evaluate(`${head}${message.program}; })`) as () => (marker: unknown) => unknown;
    const program = Reflect.apply(wrapper, undefined, []);
    completion = Promise.resolve(program(marker));
  } catch (error) {
    completion = Promise.reject(error);
  }
  completion.then(
    (value) => {
      const encoded = encodeJson(value === undefined ? null : value, { maxBytes: message.maxValueBytes, wellFormed: true });
      if (encoded.ok) settleLine(`{"t":"done","value":${encoded.text}}`);
      else settle({ t: 'failed', error: errorPayload(boundaryError('The workflow result', encoded.failure), detailsOf) });
    },
    (error: unknown) => settle({ t: 'failed', error: { ...errorPayload(error, detailsOf), ...scriptPosition(error) } }),
  );
  calls.schedule();
}

function receive(line: string): void {
  let message: HostMessage;
  try {
    message = JSON.parse(line) as HostMessage;
  } catch {
    return;
  }
  if (message.t === 'ping') post({ t: 'pong' });
  else if (message.t === 'start') start(message);
  else if (message.t === 'reply' && !settled) calls?.reply(message);
}

const reader = new LineReader(UNLIMITED, receive, () => undefined);
process.stdin.on('data', (chunk: Buffer) => reader.push(chunk));
// The host went away: nothing can use this process any more.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdout.on('error', () => process.exit(0));
post({ t: 'ready' });
