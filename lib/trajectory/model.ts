/**
 * What the viewer page shows of one run, built from its persisted files
 * alone (snapshot.json, calls.jsonl, events.jsonl, result.json), so a
 * finished run needs nothing else. Only safe inspection metadata goes in:
 * never the script's arguments, agent prompts or configurations, checkpoint
 * prompts, tool arguments or results, or shell output (spec 1 "Rules",
 * "Events"). Logs are cut to 4 KB, the run's result to a 4 KB preview.
 */
import { join } from 'node:path';
// The kernel's readers and types by module, not its index: `wfcli view` and `report` load no engine.
import { agentTree, type AgentTreeNode } from '../../kernel/agent-tree.js';
import type { AgentSummary, StatusSummary } from '../../kernel/contracts/run-snapshot.js';
import { readCallRecords } from '../../kernel/engine/call-records-read.js';
import type { CallStatus, PrimitiveCallRecord } from '../../kernel/engine/call-records.js';
import { readRunEvents } from '../../kernel/engine/run-events.js';
import { LOG_LIMIT_BYTES } from '../../kernel/engine/run-log.js';
import { readResultText } from '../../kernel/store/run-files.js';
import { runUsage, type UsageTotals } from '../../kernel/usage.js';
import { transcriptFiles } from './transcript.js';
import { stateMarks, waitSpans, type StateMark, type WaitSpan } from '../run-time.js';


export type ControlAction = 'pause' | 'cancel-pause' | 'resume' | 'stop' | 'approve' | 'reject';

/**
 * One button of the run page; `checkpoint` names the checkpoint an approve or
 * reject answers, and `prompt` and `context` (serialized JSON) say what is
 * decided. Controls go only to the live viewer behind its token, never into a
 * report, so the checkpoint's prompt stays out of exported files.
 */
export interface ControlView {
  readonly action: ControlAction;
  readonly checkpoint?: string;
  readonly prompt?: string;
  readonly context?: string;
}

/** Format of the JSON the page reads (`/api/runs/<id>` and the stream). */
export const TRAJECTORY_MODEL_VERSION = 1;

/** Longest shell command prefix the page shows. */
export const SHELL_COMMAND_CHARS = 200;

export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
}

export interface AttemptView {
  readonly attempt: number;
  readonly startedAt: string;
  /** Absent while the attempt runs. */
  readonly endedAt?: string;
  readonly status: CallStatus | 'running';
  readonly model: string | null;
  readonly usage: Usage;
  readonly code?: string;
  /** The attempt's reference names its session file: the page can open its transcript. */
  readonly transcript?: true;
}

export interface AgentView {
  readonly id: string;
  readonly label: string;
  readonly state: AgentSummary['state'];
  readonly path: readonly string[];
  readonly breadcrumb: readonly string[];
  readonly parentId?: string;
  readonly phase?: string;
  readonly usage: Usage;
  readonly attempts: readonly AttemptView[];
}

export type TreeView = { readonly kind: 'phase' | 'group'; readonly text: string; readonly children: readonly TreeView[] } | { readonly kind: 'agent'; readonly id: string; readonly children: readonly TreeView[] };

/** A call's metadata as calls.jsonl keeps it (`name` is the primitive, or a shell command's prefix). */
export type CallView = Omit<PrimitiveCallRecord, 'v' | 'op' | 'key'>;

export interface ShellView extends CallView {
  readonly exitCode?: number;
}

/** A checkpoint and its wait (events.jsonl `checkpoint` marks): `waitedFrom` when it was asked, `waitedTo` when decided. */
export interface CheckpointView {
  readonly name: string;
  readonly state: string;
  readonly waitedFrom?: string;
  readonly waitedTo?: string;
}

/** The `checkpoint` primitive's call: shown as a checkpoint with its wait, not as a tool call. */
const CHECKPOINT_PRIMITIVE = 'checkpoint';

export interface TrajectoryModel {
  readonly v: typeof TRAJECTORY_MODEL_VERSION;
  readonly run: {
    readonly runId: string;
    readonly workflow: string;
    readonly state: StatusSummary['state'];
    readonly executing: boolean;
    readonly launchMode: StatusSummary['launchMode'];
    readonly phase?: string;
    readonly createdAt: string;
    readonly updatedAt: string;
    readonly terminalAt?: string;
    readonly parentRunId?: string;
    readonly failure?: { readonly code: string; readonly message: string };
    readonly result?: { readonly bytes: number; readonly preview: string; readonly truncated: boolean };
    /** The run's usage: its top-level agents' (kernel/usage.ts). */
    readonly usage: UsageTotals;
    /** Active time as of the last segment end; with `stateMark`, lib/run-time.ts `runTime` gives wall and active time at any moment. */
    readonly activeMs?: number;
    /** The run's last `state` mark of events.jsonl. */
    readonly stateMark?: StateMark;
  };
  readonly tree: readonly TreeView[];
  readonly agents: readonly AgentView[];
  readonly calls: readonly CallView[];
  readonly shells: readonly ShellView[];
  readonly checkpoints: readonly CheckpointView[];
  /** Checkpoint waits, pauses, offline time and budget stops, in the order they began (lib/run-time.ts). */
  readonly waits: readonly WaitSpan[];
  readonly budget: readonly { readonly at: string; readonly kind: string; readonly dimension?: string; readonly facts: Readonly<Record<string, number>> }[];
  readonly logs: readonly { readonly at: string; readonly message: string; readonly path: readonly string[] }[];
  readonly phases: readonly { readonly at: string; readonly phase: string }[];
  readonly warnings: readonly { readonly at: string; readonly message: string }[];
  /** Lines of calls.jsonl and events.jsonl that could not be read. */
  readonly skipped: number;
  /** What the run page may do to the run now (the live viewer only; never in a report). */
  readonly controls?: readonly ControlView[];
  /** Why the viewer offers no more than these controls (`wfcli view`: a run nobody owns is read-only, one another process executes is controlled there). */
  readonly controlNote?: string;
}

/** Attempt starts seen live on the event bus (agent ID → attempt → time), for attempts not yet in calls.jsonl. */
export type LiveStarts = ReadonlyMap<string, ReadonlyMap<number, string>>;

function cut(text: string, bytes: number): { text: string; truncated: boolean } {
  const buffer = Buffer.from(text);
  if (buffer.byteLength <= bytes) return { text, truncated: false };
  return { text: buffer.subarray(0, bytes).toString('utf8').replace(/\uFFFD$/, ''), truncated: true };
}

function readResult(path: string): TrajectoryModel['run']['result'] {
  try {
    const text = readResultText(path);
    const preview = cut(text, LOG_LIMIT_BYTES);
    return { bytes: Buffer.byteLength(text), preview: preview.text, truncated: preview.truncated };
  } catch {
    return undefined;
  }
}

function treeView(nodes: readonly AgentTreeNode[]): TreeView[] {
  return nodes.map((node) => (node.kind === 'agent' ? { kind: 'agent', id: node.agent.id, children: treeView(node.children) } : { kind: node.kind, text: node.text, children: treeView(node.children) }));
}

const ZERO: Usage = { inputTokens: 0, outputTokens: 0, costUsd: 0 };
const ACTIVE_AGENT = new Set(['running', 'retrying', 'waiting_for_child']);

/** The recorded attempts of an agent, plus the one still running (started live, or at its last activity), marked when a transcript exists. */
function attemptsOf(agent: AgentSummary, recorded: readonly AttemptView[], live: ReadonlyMap<number, string> | undefined, transcripts: ReadonlySet<string>): AttemptView[] {
  const attempts = [...recorded].sort((a, b) => a.attempt - b.attempt);
  const current = agent.attempts;
  if (ACTIVE_AGENT.has(agent.state) && current > 0 && !attempts.some((attempt) => attempt.attempt === current)) {
    const startedAt = live?.get(current) ?? agent.lastActivity;
    attempts.push({ attempt: current, startedAt, status: 'running', model: attempts.at(-1)?.model ?? null, usage: ZERO });
  }
  return attempts.map((attempt) => (transcripts.has(transcriptKey(agent.id, attempt.attempt)) ? { ...attempt, transcript: true } : attempt));
}

function transcriptKey(agentId: string, attempt: number): string {
  return `${attempt}\u0000${agentId}`;
}

function checkpointView(name: string, state: string, waits: readonly WaitSpan[]): CheckpointView {
  const own = waits.filter((span) => span.kind === 'checkpoint' && span.name === name);
  const first = own[0];
  const last = own.at(-1);
  return { name, state, ...(first === undefined ? {} : { waitedFrom: first.from }), ...(last?.to === undefined ? {} : { waitedTo: last.to }) };
}

export function buildModel(status: StatusSummary, runDir: string, live: LiveStarts = new Map()): TrajectoryModel {
  const calls = readCallRecords(runDir);
  const events = readRunEvents(runDir);
  const recorded = new Map<string, AttemptView[]>();
  const primitiveCalls: CallView[] = [];
  const shells: ShellView[] = [];
  for (const record of calls.records) {
    const timing = { path: record.path, phase: record.phase, startedAt: record.startedAt, endedAt: record.endedAt, status: record.status, ...(record.code === undefined ? {} : { code: record.code }) };
    if (record.op === 'agent') {
      const list = recorded.get(record.agentId) ?? [];
      list.push({ attempt: record.attempt, startedAt: record.startedAt, endedAt: record.endedAt, status: record.status, model: record.model, usage: record.usage, ...(record.code === undefined ? {} : { code: record.code }) });
      recorded.set(record.agentId, list);
    } else if (record.op === 'primitive') {
      if (record.name !== CHECKPOINT_PRIMITIVE) primitiveCalls.push({ name: record.name, ...timing });
    } else {
      shells.push({ name: cut(record.command, SHELL_COMMAND_CHARS).text, ...timing, ...(record.exitCode === undefined ? {} : { exitCode: record.exitCode }) });
    }
  }
  const transcripts = new Set(transcriptFiles(runDir).map((entry) => transcriptKey(entry.agentId, entry.attempt)));
  const agents: AgentView[] = status.agents.map((agent) => ({
    id: agent.id,
    label: agent.label,
    state: agent.state,
    path: agent.path,
    breadcrumb: agent.breadcrumb ?? [],
    ...(agent.parentId === undefined ? {} : { parentId: agent.parentId }),
    ...(agent.phase === undefined ? {} : { phase: agent.phase }),
    usage: agent.usage,
    attempts: attemptsOf(agent, recorded.get(agent.id) ?? [], live.get(agent.id), transcripts),
  }));
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  const budget: TrajectoryModel['budget'][number][] = [];
  const logs: TrajectoryModel['logs'][number][] = [];
  const phases: TrajectoryModel['phases'][number][] = [];
  // A log the store refused (a link, a FIFO, too large) is shown as a warning naming it.
  const warnings: TrajectoryModel['warnings'][number][] = [calls.problem, events.problem].flatMap((problem) => (problem === undefined ? [] : [{ at: status.updatedAt, message: cut(problem, LOG_LIMIT_BYTES).text }]));
  for (const entry of events.entries) {
    if (entry.type === 'log') {
      const path = Array.isArray(entry['path']) ? entry['path'].filter((part): part is string => typeof part === 'string') : [];
      logs.push({ at: entry.at, message: cut(text(entry['message']), LOG_LIMIT_BYTES).text, path });
    } else if (entry.type === 'phase') {
      phases.push({ at: entry.at, phase: text(entry['phase']) });
    } else if (entry.type === 'budget') {
      // Budget entries carry numbers, IDs and labels; only the numbers are shown.
      const facts = Object.fromEntries(Object.entries(entry).filter((pair): pair is [string, number] => typeof pair[1] === 'number'));
      budget.push({ at: entry.at, kind: text(entry['kind']), ...(typeof entry['dimension'] === 'string' ? { dimension: entry['dimension'] } : {}), facts });
    } else if (entry.type === 'warning') {
      warnings.push({ at: entry.at, message: cut(text(entry['message']), LOG_LIMIT_BYTES).text });
    }
  }
  const waits = waitSpans(events.entries);
  const lastMark = stateMarks(events.entries).at(-1);
  const result = status.state === 'completed' ? readResult(status.resultPath ?? join(runDir, 'result.json')) : undefined;
  return {
    v: TRAJECTORY_MODEL_VERSION,
    run: {
      runId: status.runId,
      workflow: status.workflow.name,
      state: status.state,
      executing: status.executing,
      launchMode: status.launchMode,
      ...(status.phase === undefined ? {} : { phase: status.phase }),
      createdAt: status.createdAt,
      updatedAt: status.updatedAt,
      ...(status.terminalAt === undefined ? {} : { terminalAt: status.terminalAt }),
      ...(status.parentRunId === undefined ? {} : { parentRunId: status.parentRunId }),
      ...(status.failure === undefined ? {} : { failure: { code: status.failure.code, message: cut(status.failure.message, LOG_LIMIT_BYTES).text } }),
      ...(result === undefined ? {} : { result }),
      usage: runUsage(status.agents),
      ...(status.activeMs === undefined ? {} : { activeMs: status.activeMs }),
      ...(lastMark === undefined ? {} : { stateMark: lastMark }),
    },
    tree: treeView(agentTree(status.agents)),
    agents,
    calls: primitiveCalls,
    shells,
    checkpoints: status.checkpoints.map(({ name, state }) => checkpointView(name, state, waits)),
    waits,
    budget,
    logs,
    phases,
    warnings,
    skipped: calls.skipped.length + events.skipped.length,
  };
}
