/**
 * What crosses the queue: one prepared agent attempt (the frozen
 * configuration, the prompt, the repository and base commit) and its
 * outcome (result, usage, transcript, the agent's commit). Both sides treat
 * the other's JSON as hostile: each is validated with ajv where it is read.
 * No credential is part of either: workers use their own Pi auth.
 *
 * The DBOS workflow ID of an attempt is `<run-id>/<identity>/<attempt>`, an
 * idempotency key: a host that resumes the run enqueues the same ID and
 * re-attaches to the attempt instead of starting it again.
 */
import { createHash } from 'node:crypto';
import { compileOnFirstUse, formatAjvErrors, WorkflowError, type AgentIdentity, type JsonValue } from '../../kernel/index.js';

/** 2: attempts carry host tools and a nested child's ceiling; a worker of another format never takes them (DBOS's application version). */
export const ATTEMPT_FORMAT = 2;
/** The name the worker registers its DBOS workflow under; the host enqueues by it. */
export const ATTEMPT_WORKFLOW = 'pi-extensible-workflows.agent-attempt';
/** The DBOS application name of workers and of the queue's registration. */
export const APPLICATION_NAME = 'pi-extensible-workflows';
/** Hosts and workers agree on this application version, so any worker runs any host's attempts. */
export const APPLICATION_VERSION = `pi-extensible-workflows.remote-agents.${ATTEMPT_FORMAT}`;
/** A transcript larger than this is not carried back (the RPC boundary). */
export const MAX_TRANSCRIPT_BYTES = 10 * 1024 * 1024;

export interface AttemptStats {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  readonly turns: number;
}

/** A host tool as the attempt carries it: its definition, never its code (worker-tools.ts). */
export interface HostToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, JsonValue>>;
}

export interface AttemptRequest {
  readonly format: typeof ATTEMPT_FORMAT;
  readonly workflowId: string;
  readonly runId: string;
  readonly identity: AgentIdentity;
  readonly attempt: number;
  readonly label: string;
  /** `provider/model:thinking`, or '' for the worker's default model. */
  readonly model: string;
  readonly prompt: string;
  readonly turnControl?: string;
  readonly systemPrompt?: string;
  readonly systemPromptAppend?: string;
  /** The session's tool selection after setup hooks (SessionInput.tools). */
  readonly tools: readonly string[];
  readonly preparedTools: readonly string[];
  readonly rootTools?: readonly string[];
  readonly skills: readonly string[];
  readonly extensions: readonly string[];
  readonly excludeTools: readonly string[];
  readonly contextFiles?: boolean | readonly string[];
  /** The session's custom tools, which run in the host: the worker offers proxies of them. */
  readonly hostTools?: readonly HostToolDefinition[];
  /** A nested child's parent ceiling (SessionInput.ceiling), as the parent's worker reported its resources. */
  readonly ceiling?: { readonly tools: readonly string[]; readonly skills: readonly string[]; readonly extensions: readonly string[] };
  readonly outputSchema?: Readonly<Record<string, JsonValue>>;
  /** The frozen extension settings, without this plugin's own key (it names the database). */
  readonly settings: Readonly<Record<string, JsonValue>>;
  readonly projectTrusted: boolean;
  /**
   * A named handle's later turn: the worker resumes the session of the
   * handle's previous turn (its Pi session file, as the host holds it) in a
   * worktree at that turn's result commit (`repository.baseCommit`).
   */
  readonly continuation?: { readonly turn: number; readonly transcript: string };
  readonly repository: {
    /** The host's URL of the remote, for diagnostics; a worker fetches from its own clone's remote. */
    readonly remoteUrl: string;
    readonly baseCommit: string;
    /** The agent's cwd relative to the repository's top folder ('' for the top). */
    readonly subdirectory: string;
    /** Where the worker pushes the agent's commit. */
    readonly resultBranch: string;
  };
}

export interface AttemptOutcome {
  readonly format: typeof ATTEMPT_FORMAT;
  readonly status: 'completed' | 'failed';
  /** The value submitted with workflow_result, when the agent submitted one. */
  readonly submitted?: { readonly value: JsonValue };
  readonly error?: { readonly code: string; readonly message: string };
  readonly stats: AttemptStats;
  readonly model: string;
  readonly systemPrompt?: string;
  readonly sessionId: string;
  /** The execution's key in the usage tables, when it is not `sessionId` (a resumed session keeps the handle's Pi session ID). */
  readonly execution?: string;
  /** The native Pi session file's text (JSONL). */
  readonly transcript: string;
  readonly commit?: { readonly branch: string; readonly sha: string };
  readonly executor: string;
}

/** A stable, bounded text for an agent identity: the SHA-256 of its canonical JSON, 24 hex digits. */
export function identityKey(identity: AgentIdentity): string {
  const canonical = JSON.stringify([identity.structuralPath, identity.callSite, identity.occurrence, identity.parentBreadcrumb ?? null, identity.worktreeOwner ?? null, identity.handle ?? null, identity.turn ?? null]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 24);
}

export function attemptWorkflowId(runId: string, identity: AgentIdentity, attempt: number): string {
  return `${runId}/${identityKey(identity)}/${attempt}`;
}

/** A handle's later turn of an attempt: its own workflow ID, so a resumed host re-attaches to it rather than running it twice. */
export function turnWorkflowId(attemptId: string, turn: number): string {
  return turn <= 1 ? attemptId : `${attemptId}/t${turn}`;
}

/** The branch an attempt's commit is pushed to: one per workflow ID, so a recovered execution replaces its own. */
export function resultBranch(workflowId: string): string {
  // A later turn's ID extends its first turn's (`<id>/t2`); git cannot hold a branch under another branch's name.
  return `wfcli/remote/${workflowId.replace(/\/t(\d+)$/, '-t$1')}`;
}

const STATS = {
  type: 'object',
  additionalProperties: false,
  required: ['inputTokens', 'outputTokens', 'costUsd', 'turns'],
  properties: {
    inputTokens: { type: 'integer', minimum: 0 },
    outputTokens: { type: 'integer', minimum: 0 },
    costUsd: { type: 'number', minimum: 0 },
    turns: { type: 'integer', minimum: 0 },
  },
} as const;
const SHA = { type: 'string', pattern: '^[0-9a-f]{40}([0-9a-f]{24})?$' } as const;
const NAMES = { type: 'array', items: { type: 'string' }, maxItems: 4096 } as const;

const validateOutcome = compileOnFirstUse<AttemptOutcome>({
  type: 'object',
  additionalProperties: false,
  required: ['format', 'status', 'stats', 'model', 'sessionId', 'transcript', 'executor'],
  properties: {
    format: { const: ATTEMPT_FORMAT },
    status: { enum: ['completed', 'failed'] },
    submitted: { type: 'object', additionalProperties: false, required: ['value'], properties: { value: {} } },
    error: { type: 'object', additionalProperties: false, required: ['code', 'message'], properties: { code: { type: 'string', pattern: '^[A-Z_]{1,64}$' }, message: { type: 'string', maxLength: 65536 } } },
    stats: STATS,
    model: { type: 'string', maxLength: 1024 },
    systemPrompt: { type: 'string' },
    sessionId: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,128}$' },
    execution: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,160}$' },
    transcript: { type: 'string', maxLength: MAX_TRANSCRIPT_BYTES },
    commit: { type: 'object', additionalProperties: false, required: ['branch', 'sha'], properties: { branch: { type: 'string', maxLength: 512 }, sha: SHA } },
    executor: { type: 'string', maxLength: 256 },
  },
});

const validateRequest = compileOnFirstUse<AttemptRequest>({
  type: 'object',
  required: ['format', 'workflowId', 'runId', 'identity', 'attempt', 'label', 'model', 'prompt', 'tools', 'preparedTools', 'skills', 'extensions', 'excludeTools', 'settings', 'projectTrusted', 'repository'],
  properties: {
    format: { const: ATTEMPT_FORMAT },
    workflowId: { type: 'string', maxLength: 512 },
    runId: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' },
    identity: { type: 'object' },
    attempt: { type: 'integer', minimum: 1 },
    label: { type: 'string' },
    model: { type: 'string' },
    prompt: { type: 'string' },
    turnControl: { type: 'string' },
    systemPrompt: { type: 'string' },
    systemPromptAppend: { type: 'string' },
    tools: NAMES,
    preparedTools: NAMES,
    rootTools: NAMES,
    skills: NAMES,
    extensions: NAMES,
    excludeTools: NAMES,
    contextFiles: { oneOf: [{ type: 'boolean' }, NAMES] },
    hostTools: {
      type: 'array',
      maxItems: 64,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'description', 'parameters'],
        properties: { name: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,128}$' }, description: { type: 'string', maxLength: 65536 }, parameters: { type: 'object' } },
      },
    },
    ceiling: { type: 'object', additionalProperties: false, required: ['tools', 'skills', 'extensions'], properties: { tools: NAMES, skills: NAMES, extensions: NAMES } },
    outputSchema: { type: 'object' },
    settings: { type: 'object' },
    projectTrusted: { type: 'boolean' },
    continuation: {
      type: 'object',
      additionalProperties: false,
      required: ['turn', 'transcript'],
      properties: { turn: { type: 'integer', minimum: 2, maximum: 100000 }, transcript: { type: 'string', maxLength: MAX_TRANSCRIPT_BYTES } },
    },
    repository: {
      type: 'object',
      additionalProperties: false,
      required: ['remoteUrl', 'baseCommit', 'subdirectory', 'resultBranch'],
      properties: {
        remoteUrl: { type: 'string', maxLength: 4096 },
        baseCommit: SHA,
        // Relative, no `..` segment: the worker joins it to its worktree.
        subdirectory: { type: 'string', pattern: '^(?!/)(?!.*(^|/)\\.\\.(/|$)).*$', maxLength: 4096 },
        resultBranch: { type: 'string', pattern: '^wfcli/remote/[A-Za-z0-9._/-]+$', maxLength: 512 },
      },
    },
  },
});

/** A worker's outcome as the host reads it: any shape but this one fails the attempt, naming the worker's answer as the source. */
export function parseOutcome(value: unknown, workflowId: string): AttemptOutcome {
  if (!validateOutcome(value)) throw new WorkflowError('AGENT_FAILED', `the remote worker's answer for ${workflowId} is malformed: ${formatAjvErrors(validateOutcome.errors)}`);
  return value;
}

/** A queued attempt as the worker reads it. */
export function parseRequest(value: unknown): AttemptRequest {
  if (!validateRequest(value)) throw new WorkflowError('AGENT_FAILED', `the queued attempt is malformed: ${formatAjvErrors(validateRequest.errors)}`);
  if (value.workflowId !== turnWorkflowId(attemptWorkflowId(value.runId, value.identity, value.attempt), value.continuation?.turn ?? 1)) throw new WorkflowError('AGENT_FAILED', `the queued attempt's workflow ID ${value.workflowId} does not match its run, identity and attempt`);
  return value;
}
