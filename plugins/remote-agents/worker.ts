/**
 * `wfcli worker`: a DBOS process with the attempt workflow registered,
 * listening to one queue. Each dequeued attempt runs as the body of its DBOS
 * workflow (worker-attempt.ts): its outcome is the workflow's output, recorded
 * once, so a finished attempt never runs again; a worker killed mid-attempt
 * leaves the workflow unrecorded and a live worker recovers the attempt
 * (worker-lease.ts), which then runs again from the start. The worker's executor ID is new at every start.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { WorkflowError, type AgentTransport } from '../../kernel/index.js';
import { APPLICATION_NAME, APPLICATION_VERSION, ATTEMPT_WORKFLOW, parseRequest, type AttemptOutcome } from './attempt.js';
import { migrateOnce } from './migrate.js';
import { runAttempt } from './worker-attempt.js';
import { holdLease } from './worker-lease.js';
import { ANSWER_CHANNEL, CallLog } from './call-log.js';
import { Notifications } from './notifications.js';
import { TurnLog } from './turn-log.js';
import { UsageStore } from './usage-store.js';
import { WorktreePool } from './worktree-pool.js';

export interface WorkerOptions {
  readonly database: string;
  readonly queue: string;
  /** Attempts this worker runs at once (the queue's per-worker concurrency). */
  readonly concurrency: number;
  /** The worker's clone of the project. */
  readonly repo: string;
  /** The clone's remote it fetches base commits from and pushes agents' commits to. */
  readonly remote: string;
  /** The Pi transport (plugins/pi-transport), handed in by the command. */
  readonly transport: AgentTransport;
  /** The Pi transport resuming a session file (a handle's later turn), handed in by the command. */
  readonly continueTransport?: (sessionFile: string) => AgentTransport;
  /** Where attempt worktrees go; default a folder per executor in the OS temp dir. */
  readonly worktrees?: string;
  /** How often the queue and cancellations are polled; default 20 ms. */
  readonly pollMs?: number;
  /** How often dead workers are looked for; default 1000 ms. */
  readonly recoveryIntervalMs?: number;
  readonly log: (line: string) => void;
  /** The worker lost its lease: end the process without recording anything. */
  readonly abandon: (reason: string) => never;
  /** Aborted to stop the worker (SIGINT, SIGTERM): running attempts are cancelled and recovered elsewhere. */
  readonly signal: AbortSignal;
}

export interface RunningWorker {
  readonly executor: string;
  /** Settles when the worker stopped. */
  readonly stopped: Promise<void>;
}

function executorId(): string {
  const host = os.hostname().replace(/[^A-Za-z0-9.-]/g, '-').slice(0, 64);
  return `wfcli-worker-${host}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Polls the attempt's workflow status; settles when it is cancelled or the attempt ended. */
function cancellation(workflowId: string, pollMs: number, read: (id: string) => Promise<{ readonly status: string } | null>): (signal: AbortSignal) => Promise<void> {
  return async (signal) => {
    // The first read waits too: the attempt was dequeued just now, and its start is what every attempt pays for.
    while (!signal.aborted) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(pollMs, 200));
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      if (signal.aborted) break;
      const status = await read(workflowId).catch(() => null);
      if (status?.status === 'CANCELLED') return;
    }
    throw new Error('attempt ended');
  };
}

export async function runWorker(options: WorkerOptions): Promise<RunningWorker> {
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1 || options.concurrency > 256) {
    throw new WorkflowError('CONFIG_ERROR', `--concurrency must be an integer from 1 to 256 (got ${options.concurrency})`);
  }
  const { DBOS, DBOSClient, Error: DBOSErrors } = await import('@dbos-inc/dbos-sdk');
  const executor = executorId();
  const pollMs = options.pollMs ?? 20;
  // Worktrees are reused (worktree-pool.ts): one per running attempt, as many more being cleaned.
  const worktrees = new WorktreePool({ repo: options.repo, remote: options.remote, root: options.worktrees ?? path.join(os.tmpdir(), executor), max: 2 * options.concurrency });
  await migrateOnce(options.database);
  // The lease comes before DBOS: no attempt is taken by an executor whose death nobody could notice.
  const lease = await holdLease({
    database: options.database,
    executor,
    queue: options.queue,
    intervalMs: options.recoveryIntervalMs ?? 1000,
    log: options.log,
    onLost: (reason) => options.abandon(`the worker ${executor} lost its lease (${reason}); its attempts will be recovered by a live worker`),
  });

  const usage = new UsageStore(options.database);
  const turns = new TurnLog(options.database);
  // Host tool calls: their table, and one listening connection for their answers, opened at the first call.
  const calls = new CallLog(options.database);
  const answers = new Notifications(options.database, [ANSWER_CHANNEL], 'wfcli remote answers');
  // The queue's limits are in the database before DBOS starts: its first dispatch already honours them.
  // The client stays open to read attempts' statuses: DBOS.getWorkflowStatus inside the attempt's workflow would
  // be a recorded operation (a write per read) that throws, instead of answering, once the workflow is cancelled.
  const admin = await DBOSClient.create({ systemDatabaseUrl: options.database, applicationName: APPLICATION_NAME, systemDatabasePoolSize: 2 });
  try {
    await admin.registerQueue(options.queue, { workerConcurrency: options.concurrency, minPollingIntervalMs: pollMs, onConflict: 'always_update' });
  } catch (error) {
    await admin.destroy();
    throw error;
  }

  const attempt = async (raw: unknown): Promise<AttemptOutcome> => {
    const request = parseRequest(raw);
    if (request.workflowId !== DBOS.workflowID && !(DBOS.workflowID ?? '').startsWith(`${request.workflowId}/r`)) {
      throw new WorkflowError('AGENT_FAILED', `the queued attempt names ${request.workflowId} but runs as ${DBOS.workflowID ?? 'no workflow'}`);
    }
    const workflowId = DBOS.workflowID ?? request.workflowId;
    // No step around the attempt: the workflow's output is its one record. DBOS writes it once, only for the
    // execution that still owns the workflow; a step would write the same outcome (its transcript too) first.
    const outcome = await runAttempt(request, {
      transport: options.transport,
      ...(options.continueTransport === undefined ? {} : { continueTransport: options.continueTransport }),
      repo: options.repo,
      remote: options.remote,
      worktrees,
      executor,
      // The turn row lets the host stop the attempt between turns (a hard limit); the usage row outlives a dead execution.
      progress: async (execution, stats, submitted) => void (await Promise.all([usage.record(workflowId, execution, stats), turns.record(workflowId, execution, stats, submitted)])),
      cancelled: cancellation(workflowId, pollMs, async (id) => (await admin.getWorkflow(id)) ?? null),
      hostCalls: { workflowId, calls: () => calls, answers: () => answers },
    });
    // A cancelled attempt records no outcome: its workflow stays CANCELLED, and a resumed host runs it again.
    if (outcome.error?.code === 'CANCELLED') throw new DBOSErrors.DBOSWorkflowCancelledError(workflowId);
    return outcome;
  };
  DBOS.registerWorkflow(attempt, { name: ATTEMPT_WORKFLOW });
  DBOS.setConfig({
    name: APPLICATION_NAME,
    systemDatabaseUrl: options.database,
    executorID: executor,
    applicationVersion: APPLICATION_VERSION,
    runAdminServer: false,
    logLevel: 'error',
    listenQueues: [options.queue],
  });
  await DBOS.launch();
  lease.recover();
  options.log(`worker ${executor} listening on queue ${options.queue} (concurrency ${options.concurrency}, repository ${options.repo})`);

  const stopped = new Promise<void>((resolve) => {
    const stop = async (): Promise<void> => {
      // Attempts still running are left PENDING: with the lease released, a live worker recovers them.
      await DBOS.shutdown().catch(() => undefined);
      await worktrees.close();
      await lease.close();
      await admin.destroy().catch(() => undefined);
      await usage.close();
      await turns.close();
      await calls.close();
      await answers.close();
      resolve();
    };
    if (options.signal.aborted) void stop();
    else options.signal.addEventListener('abort', () => void stop(), { once: true });
  });
  return { executor, stopped };
}
