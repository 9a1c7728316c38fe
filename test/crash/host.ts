/**
 * Shared by the crash-test host processes (`child.ts`, `agent-child.ts`):
 * launches the workflow, or recovers and resumes the run when given its id,
 * and reports on stdout, one line each:
 *
 *   RUN <runId> <runDir>     the run is executing (printed once launch/resume returned)
 *   OUTCOME <json>           the segment ended (RunOutcome)
 *   ERROR <json>             launch/resume threw ({ code, message })
 *
 * Load it with `await import('./host.js')` after `../../scripts/ts-resolve.mjs`.
 */
import type { WorkflowEngine } from '../../kernel/engine/engine.js';

export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

export async function hostRun(engine: WorkflowEngine, name: string, config: { readonly cwd: string; readonly script: string; readonly runId?: string }): Promise<void> {
  try {
    let handle;
    if (config.runId === undefined) {
      handle = await engine.launch({ name, cwd: config.cwd, script: config.script });
    } else {
      engine.recoverInterrupted(config.cwd);
      handle = await engine.resume(config.cwd, config.runId);
    }
    say(`RUN ${handle.runId} ${handle.runDir}`);
    const outcome = await handle.outcome;
    say(`OUTCOME ${JSON.stringify(outcome)}`);
    await engine.close();
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    say(`ERROR ${JSON.stringify({ code: code ?? 'UNKNOWN', message: message ?? String(error) })}`);
    await engine.close();
    process.exitCode = 1;
  }
}
