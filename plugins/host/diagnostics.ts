/**
 * Failure diagnostics (spec 1 `workflow_retry`): the kernel's part (source
 * run, lineage, replayable and incomplete paths, artifact locations) plus
 * what loaded plugins add under `plugins` through `journal.diagnose`, such as
 * the validated named worktrees.
 */
import { WorkflowError, isWorkflowError, messageOf, type JsonValue, type Kernel, type RunDiagnostics, type StatusSummary, type WorkflowEngineApi } from '../../kernel/index.js';

export type FailureDiagnostics = RunDiagnostics & { readonly plugins: Readonly<Record<string, JsonValue>> };

/** A plugin part that throws is reported in `problems`; the rest still answer. */
export function failureDiagnostics(engine: WorkflowEngineApi, kernel: Kernel, run: StatusSummary): FailureDiagnostics {
  const base = engine.diagnose(run.cwd, run.runId);
  const problems = [...(base.problems ?? [])];
  const parts: { name: string; diagnose: () => JsonValue }[] = [];
  kernel.hooks.journal.diagnose.call({
    run: { runId: run.runId, sessionId: run.sessionId, cwd: run.cwd },
    pluginState: (plugin) => run.plugins[plugin],
    add: (name, diagnose) => void parts.push({ name, diagnose }),
  });
  const plugins: Record<string, JsonValue> = {};
  for (const part of parts) {
    try {
      plugins[part.name] = part.diagnose();
    } catch (error) {
      problems.push(`${part.name}: ${messageOf(error)}`);
    }
  }
  return { ...base, plugins, ...(problems.length > 0 ? { problems } : {}) };
}

/** A refused retry's error with the source run's diagnostics in its details (unchanged when the run cannot be read). */
export function withDiagnostics(error: unknown, engine: WorkflowEngineApi, kernel: Kernel, cwd: string, runId: string): unknown {
  if (!isWorkflowError(error) || error.code === 'RUN_NOT_FOUND') return error;
  let diagnostics: FailureDiagnostics;
  try {
    diagnostics = failureDiagnostics(engine, kernel, engine.status(cwd, runId));
  } catch {
    return error;
  }
  return new WorkflowError(error.code, error.message, { ...error.details, diagnostics }, { cause: error });
}
