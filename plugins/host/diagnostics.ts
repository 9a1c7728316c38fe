/**
 * Failure diagnostics (spec 1 `workflow_retry`): the kernel's part (source
 * run, lineage, replayable and incomplete paths, artifact locations) plus
 * what feature plugins add under `plugins`, such as the validated named
 * worktrees. Plugins never import each other, so the host entry
 * (src/index.ts) hands their providers to the host.
 */
import { WorkflowError, isWorkflowError, messageOf, type JsonValue, type RunDiagnostics, type StatusSummary, type WorkflowEngine } from '../../kernel/index.js';

export interface DiagnosticsProvider {
  /** Its key under `diagnostics.plugins` (the plugin's name). */
  readonly name: string;
  /** Reads the run's status (its plugin state); changes nothing. */
  diagnose(run: StatusSummary): JsonValue;
}

export type FailureDiagnostics = RunDiagnostics & { readonly plugins: Readonly<Record<string, JsonValue>> };

/** A provider that throws is reported in `problems`; the rest still answer. */
export function failureDiagnostics(engine: WorkflowEngine, run: StatusSummary, providers: readonly DiagnosticsProvider[]): FailureDiagnostics {
  const base = engine.diagnose(run.cwd, run.runId);
  const problems = [...(base.problems ?? [])];
  const plugins: Record<string, JsonValue> = {};
  for (const provider of providers) {
    try {
      plugins[provider.name] = provider.diagnose(run);
    } catch (error) {
      problems.push(`${provider.name}: ${messageOf(error)}`);
    }
  }
  return { ...base, plugins, ...(problems.length > 0 ? { problems } : {}) };
}

/** A refused retry's error with the source run's diagnostics in its details (unchanged when the run cannot be read). */
export function withDiagnostics(error: unknown, engine: WorkflowEngine, cwd: string, runId: string, providers: readonly DiagnosticsProvider[]): unknown {
  if (!isWorkflowError(error) || error.code === 'RUN_NOT_FOUND') return error;
  let diagnostics: FailureDiagnostics;
  try {
    diagnostics = failureDiagnostics(engine, engine.status(cwd, runId), providers);
  } catch {
    return error;
  }
  return new WorkflowError(error.code, error.message, { ...error.details, diagnostics }, { cause: error });
}
