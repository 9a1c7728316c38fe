/**
 * One long-lived workflow host (one kernel, one engine, one sandbox pool)
 * that runs every hostile reproduction of issue 10 in turn, then a normal
 * workflow, and reports each outcome on stdout as `CASE <json>`. If any
 * reproduction took the process down, the parent sees it die instead of
 * reading the last line, `SURVIVED`.
 *
 * Usage: node test/adversarial/repro-host.ts '<json { dir, cases }>'
 */
import '../../scripts/ts-resolve.mjs';

export interface ReproCase {
  readonly name: string;
  readonly script: string;
}

export interface ReproReport {
  readonly name: string;
  readonly state: string;
  readonly value?: unknown;
  readonly error?: { readonly code: string; readonly message: string; readonly details?: Record<string, unknown> };
  /** Bytes of events.jsonl the run wrote. */
  readonly eventBytes: number;
  /** Set when launch itself refused the script. */
  readonly launchError?: { readonly code: string; readonly message: string };
}

const { existsSync, mkdirSync, statSync } = await import('node:fs');
const { join } = await import('node:path');
const { createKernel } = await import('../../kernel/kernel.js');
const { WorkflowEngine } = await import('../../kernel/engine/engine.js');
const { readSnapshot } = await import('../../kernel/store/index.js');
const { evidencePlugin } = await import('../../plugins/evidence/index.js');
const { echoTransportPlugin } = await import('../support/echo-transport.js');

const { dir, cases, watchdogMs } = JSON.parse(process.argv[2] ?? '{}') as { dir: string; cases: ReproCase[]; watchdogMs: number };
const cwd = join(dir, 'cwd');
mkdirSync(cwd, { recursive: true });
const engine = new WorkflowEngine({
  kernel: createKernel({ plugins: [evidencePlugin, echoTransportPlugin()] }),
  sessionId: 'adversarial',
  root: join(dir, 'root'),
  agentDir: join(dir, 'agent'),
  home: dir,
  sandbox: { watchdogMs },
});

for (const { name, script } of cases) {
  let report: ReproReport;
  try {
    const handle = await engine.launch({ name: 'repro', cwd, script });
    const outcome = await handle.outcome;
    const events = join(handle.runDir, 'events.jsonl');
    const snapshot = readSnapshot(handle.runDir) as { failure?: ReproReport['error'] };
    report = {
      name,
      state: outcome.state,
      ...(outcome.value === undefined ? {} : { value: outcome.value }),
      ...(snapshot.failure ? { error: snapshot.failure } : {}),
      eventBytes: existsSync(events) ? statSync(events).size : 0,
    };
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    report = { name, state: 'refused', eventBytes: 0, launchError: { code: code ?? 'UNKNOWN', message: message ?? String(error) } };
  }
  process.stdout.write(`CASE ${JSON.stringify(report)}\n`);
}
await engine.close();
process.stdout.write('SURVIVED\n');
