/**
 * A no-op remote worker for `npm run bench:remote`: a DBOS process with the
 * attempt workflow registered under its real name and queue, answering each
 * attempt at once with a fixed outcome (no git, no Pi). It measures what the
 * queue itself costs: DBOS dispatch on Postgres (the bench registers the
 * queue's limits). argv: <database> <queue>. Prints "ready" once it listens; stops on SIGTERM.
 */
import '../scripts/ts-resolve.mjs';

const { DBOS } = await import('@dbos-inc/dbos-sdk');
const { APPLICATION_NAME, APPLICATION_VERSION, ATTEMPT_FORMAT, ATTEMPT_WORKFLOW } = await import('../plugins/remote-agents/attempt.js');
const [database = '', queue = 'pi-agents'] = process.argv.slice(2);

const outcome = { format: ATTEMPT_FORMAT, status: 'completed', submitted: { value: 'ok' }, stats: { inputTokens: 0, outputTokens: 0, costUsd: 0, turns: 1 }, model: '', sessionId: 'noop', transcript: '', executor: 'noop' };
// Shaped like the real worker's workflow (plugins/remote-agents/worker.ts): the outcome is the workflow's output, no step.
DBOS.registerWorkflow(async () => outcome, { name: ATTEMPT_WORKFLOW });
DBOS.setConfig({
  name: APPLICATION_NAME,
  systemDatabaseUrl: database,
  executorID: `noop-${process.pid}`,
  applicationVersion: APPLICATION_VERSION,
  runAdminServer: false,
  logLevel: 'error',
  listenQueues: [queue],
});
await DBOS.launch();
console.log('ready');
process.on('SIGTERM', () => void DBOS.shutdown().finally(() => process.exit(0)));
