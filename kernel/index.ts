/** The kernel's public surface: hook points, the plugin contract, errors, settings, registry. */
export { createKernel } from './kernel.js';
export type { Kernel, KernelOptions } from './kernel.js';
export type { KernelPlugin, PluginDeclaration, PluginHooks, PluginKernel, PluginProvides, TapOnly } from './plugin-api.js';
export { TRANSPORT_CAPABILITY, tagPluginError } from './plugin-api.js';
export { PLUGIN_DECLARATION_SCHEMA, checkDeclaration, describeMissing } from './plugin-set.js';
export type { PluginProvider, ProvidedKind } from './plugin-set.js';
export {
  PLUGIN_REGISTRY_FORMAT_VERSION,
  contributeWorkflowPlugin,
  contributedWorkflowPlugins,
  freezeWorkflowPlugins,
  resetWorkflowPlugins,
  workflowPluginEntry,
  workflowPluginsState,
} from './plugin-registry.js';
export type { PluginRegistryState, WorkflowPluginEntry } from './plugin-registry.js';
export { agentTree, pathLevels } from './agent-tree.js';
export type { AgentTreeNode, PathLevel } from './agent-tree.js';
export { createHooks } from './hooks.js';
export type { AgentPlaceInput, AgentPlacement, DiagnoseInput, HookPointName, JournalObservation, KernelHooks, KernelPreparationContext, LaunchInput, LogObservation, ModelInventory, ModelInventoryInput, RegistryFrozenInput, RunRef, SegmentInput, SegmentSettlement, TransportSelectInput } from './hooks.js';
export { startWorkflowSession, shutdownWorkflowSession } from './session.js';
export * from './errors.js';
export { MINIMUM_NODE_VERSION, assertSupportedNode, unsupportedNode } from './node-version.js';
export * from './states.js';
export { NO_USAGE, addUsage, runUsage, type UsageTotals } from './usage.js';
export * from './events.js';
export type { JsonValue } from './json.js';
export { deepFreeze } from './json.js';
export { BOUNDARY_BYTES, boundaryCopy, boundaryText, checkBoundary, type BoundaryOptions } from './json-boundary.js';
export * from './settings/index.js';
export * from './registry/index.js';
export type * from './contracts/agent-options.js';
export type * from './contracts/attempt-action.js';
export type * from './contracts/function-context.js';
export type * from './contracts/host.js';
export type * from './contracts/identity.js';
export type * from './contracts/model-alias.js';
export type * from './contracts/preparation.js';
export type * from './contracts/setup.js';
export type * from './contracts/transport.js';
export type * from './contracts/primitive.js';
export type * from './contracts/subcommand.js';
export type { ApprovedProposal, PluginEvent, ProposalRecord, RunAccess, RunEventEntry } from './contracts/run-access.js';
export { WorkflowEngine } from './engine/engine.js';
export type { EngineOptions } from './engine/engine-types.js';
export type * from './contracts/engine-api.js';
export type * from './contracts/run-snapshot.js';
export { summarize } from './engine/status.js';
export { parseSnapshot } from './engine/snapshot.js';
export { IDENTITY_VERSION, SCRIPT_LANGUAGE } from './engine/snapshot.js';
export { isRetryable } from './engine/guidance.js';
export { CALL_RECORD_SCHEMA, CALL_RECORD_VERSION } from './engine/call-records.js';
export { readCallRecords } from './engine/call-records-read.js';
export type { AgentAttemptRecord, CallRecord, CallStatus, PrimitiveCallRecord, ShellCallRecord } from './engine/call-records.js';
export type { CallRecords } from './engine/call-records-read.js';
export { readRunEvents } from './engine/run-events.js';
export type { RunEventLine } from './engine/run-events.js';
export { CALLS_FILE, EVENTS_FILE, LOG_LIMIT_BYTES } from './engine/run-log.js';
export type { SandboxLimits } from './sandbox/pool.js';
export { disableSandboxSpares } from './sandbox/spares.js';
export { compileOnFirstUse, createAjv, formatAjvErrors, lazyAjv, type LazyValidator } from './json-schema.js';
export type { PrecompiledValidator } from './precompiled.js';
// Read-only access to stored runs of any session (wfcli list, inspect, cleanup).
export { findRun, listRuns, readRunLock, workflowsRoot, writeFileAtomic, writeRunReport } from './store/index.js';
export type { ListProblem, LockOwner, RunEntry } from './store/index.js';
// Reading run files as the store does: never through a link, never a FIFO or a device, bounded (docs/storage.md).
export { READ_LIMITS, entryKind, readRegular, readRegularIfExists, readResultText } from './store/index.js';
// A host fault writing a file the run owns outside the store (an agent's transcript) halts the run like a store write.
export { errnoCode, writeFailed } from './store/index.js';
// The precompiled validators' runtime helpers (scripts/precompile-schemas.ts), for those in plugins.
export { jsonEqual, ucs2length } from './schema-runtime.js';
export { checkStoredRun, shownSnapshot } from './engine/stored-run-queries.js';
export { RESULT_TOOL_NAME, mayBeComputed } from './contracts/agent-options.js';
export { RESULT_TOOL_SNIPPET, compileResultSchema, resultSchemaText, resultToolContract, resultToolGuideline, resultValue, judgeResult, resultToolPresentation, type ResultToolContract } from './result-tool.js';
export { CORE_AGENT_OPTIONS } from './engine/ops/agent-options.js';
export { parseAst } from './preflight/parse-ast.js';
export { isNode, walk, type Node } from './preflight/ast.js';
