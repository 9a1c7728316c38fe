/**
 * The workflow host: the Pi extension (tools, `/workflow`, session lifecycle)
 * and its kernel plugin. The default export is the plugin with no Pi session
 * bound: no events leave the kernel and no script tool is callable.
 */
import { createHostPlugin } from './plugin.js';

export const hostPlugin = createHostPlugin();
export default hostPlugin;

export { createHostPlugin, PLUGIN_NAME, type EventBusLike, type HostBindings } from './plugin.js';
export { createWorkflowHostExtension, type WorkflowHostOptions } from './extension.js';
export { HostSession, FOLLOW_UP_MESSAGE_TYPE, type DeliveryState, type HostSessionOptions, type WaitEnd } from './host-session.js';
export { HostEngine, type LaunchModeListener } from './host-engine.js';
export { failureDiagnostics, type FailureDiagnostics } from './diagnostics.js';
export { activeHost, type ActiveHost } from './active-host.js';
export { buildHostKernel, type HostKernelOptions } from './host-kernel.js';
export { PLUGIN_MANIFEST_FILE, PLUGIN_MANIFEST_FORMAT, PLUGIN_MANIFEST_SCHEMA, readPluginManifest, type PluginManifest } from './manifest.js';
export { INLINE_RESULT_BYTES, RESPONSE_HEADROOM_TOKENS, contextHasRoom, runResult, type CompletionDescriptor, type InlineCompletion, type RunResult, type SegmentEnd } from './delivery.js';
export { BUILTIN_TOOL_NAMES, PiToolExecutor, isReservedTool, type ToolCallRequest, type ToolExecutorOptions } from './tool-executor.js';
export { TOOLS_PRIMITIVE, checkToolNames, toolsPrimitive, type ScriptTools } from './tool-primitive.js';
export { findPackage, PACKAGE_NAME, type PackageInfo } from './package-info.js';
export { CHANGELOG_STATE_FILE, changelogStatePath, hostShowsChangelog, sectionsToAnnounce, showUpdateNotice, type ListedCommand, type UpdateNoticeInput } from './update-notice.js';
export { compareVersions, parseChangelog, type ReleaseSection } from './changelog.js';
export { WorkflowTools, ERROR_OUTPUT, type WorkflowToolDefinition } from './tools/index.js';
export type { WorkflowHostView } from './view.js';
