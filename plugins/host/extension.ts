/**
 * The Pi extension factory of the workflow host (docs/host.md). The factory
 * only registers tools and `/workflow`; everything else starts at
 * `session_start` and stops at `session_shutdown`:
 *
 * - start: decide the project's trust before any project file is read
 *   (session-trust.ts: in interactive Pi an undecided project is asked
 *   about), freeze the plugin registry and build the kernel from the plugins
 *   the loaded entries contributed (or the embedder's list), freeze the
 *   workflow registry, create the engine for Pi's session ID with that
 *   decision, register `workflow_catalog` when there is something to list,
 *   mark orphaned runs interrupted and (with UI) offer to resume them, show
 *   the update notice (interactive mode only). A start that fails (a required
 *   plugin is missing) is what every workflow tool then reports.
 * - shutdown (idempotent): interrupt what still executes, close the engine,
 *   reset both registries.
 *
 * One workflow host runs per process (active-host.ts). A Pi session created
 * inside a running host (a workflow agent's session loading the same
 * package) gets a passive copy that registers nothing.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ExtensionAPI, ExtensionContext, ExtensionFactory } from '@earendil-works/pi-coding-agent';
import {
  freezeWorkflowRegistry,
  loadingRegistry,
  messageOf,
  readCodemodeTools,
  resetWorkflowPlugins,
  resetWorkflowRegistry,
  resolveAgentDir,
  settingsPaths,
  shutdownWorkflowSession,
  startWorkflowSession,
  type Kernel,
  type KernelPlugin,
  type PluginDeclaration,
} from '../../kernel/index.js';
import { activeHost, claimActiveHost, releaseActiveHost } from './active-host.js';
import { printableLines } from '../../lib/terminal-text.js';
import { registerWorkflowCommand } from './command/index.js';
import { buildHostKernel } from './host-kernel.js';
import { HostEngine } from './host-engine.js';
import { HostSession } from './host-session.js';
import { resolveSessionTrust } from './session-trust.js';
import { readPluginManifest } from './manifest.js';
import { findPackage, type PackageInfo } from './package-info.js';
import { offerResume, recoverRuns } from './recovery.js';
import { WorkflowTools } from './tools/index.js';
import { showUpdateNotice } from './update-notice.js';

export interface WorkflowHostOptions {
  /**
   * The plugins of each session's kernel, for embedders and tests; the host
   * plugin is added to them. Default: the plugins the loaded plugin entries
   * contributed to the process-wide plugin registry.
   */
  readonly plugins?: () => readonly KernelPlugin[];
  /** Declarations of the plugins that could be loaded (named when one is missing); default the package's `dist/plugins.json`. */
  readonly known?: readonly PluginDeclaration[];
  /** Pi's agent dir; default `PI_CODING_AGENT_DIR` else `~/.pi/agent`. */
  readonly agentDir?: string;
  /** Root of run storage; default `~/.pi/workflows`. */
  readonly root?: string;
  readonly home?: string;
  /** The installed package (its CHANGELOG.md and plugin manifest); default the package this module belongs to. */
  readonly package?: PackageInfo;
  /** The embedder's `--approve` (true) or `--no-approve` (false); default Pi's command line (session-trust.ts). */
  readonly trust?: boolean;
}

/** The catalog is worth a tool when the registry has functions or aliases, or settings are in effect. */
function hasCatalog(cwd: string, agentDir: string, projectTrusted: boolean): boolean {
  const registry = loadingRegistry();
  if (registry.functions().size > 0 || registry.modelAliases().size > 0) return true;
  const { globalPath, projectPath } = settingsPaths(cwd, agentDir);
  return existsSync(globalPath) || (projectTrusted && existsSync(projectPath));
}

export function createWorkflowHostExtension(options: WorkflowHostOptions = {}): ExtensionFactory {
  return (pi: ExtensionAPI) => {
    if (activeHost() !== undefined) return;
    const owner = {};
    let kernel: Kernel | undefined;
    let session: HostSession | undefined;
    let startError: unknown;
    const current = (): HostSession | undefined => {
      if (startError !== undefined) throw startError;
      return session;
    };
    const tools = new WorkflowTools(pi, current, { codemodeTools: readCodemodeTools(options.agentDir ?? resolveAgentDir()) });
    tools.registerCore();
    registerWorkflowCommand(pi, () => session);
    const pkg = (): PackageInfo | undefined => options.package ?? findPackage();

    const start = async (ctx: ExtensionContext): Promise<HostSession | undefined> => {
      const cwd = resolve(ctx.cwd);
      const agentDir = options.agentDir ?? resolveAgentDir();
      // Before anything reads a project file; interactive Pi may ask the user here.
      const trust = await resolveSessionTrust({ ctx, cwd, agentDir, override: options.trust });
      // The session shut down while the user was being asked.
      if (activeHost()?.owner !== owner) return undefined;
      // Both registries freeze at session start, even when the kernel then cannot be built.
      freezeWorkflowRegistry();
      kernel = buildHostKernel({
        ...(options.plugins === undefined ? {} : { plugins: options.plugins() }),
        known: options.known ?? readPluginManifest(pkg()?.root),
        bindings: { eventBus: () => pi.events, tools: () => session, rootModel: () => session?.rootModel(), rootTools: () => session?.rootTools(), logged: (entry) => session?.logs.logged(entry) },
      });
      startWorkflowSession(kernel);
      const engine = new HostEngine({
        kernel,
        sessionId: ctx.sessionManager.getSessionId(),
        agentDir,
        trust,
        ...(options.root === undefined ? {} : { root: options.root }),
        ...(options.home === undefined ? {} : { home: options.home }),
        onWarning: (error) => {
          if (ctx.hasUI) ctx.ui.notify(`Workflow: ${printableLines(error.message)}`, 'warning');
        },
      });
      try {
        return new HostSession({
          pi,
          ctx,
          engine,
          kernel,
          cwd,
          sessionId: engine.sessionId,
          agentDir,
          headless: !ctx.hasUI,
          endsAfterPrompt: ctx.mode === 'print' || ctx.mode === 'json',
        });
      } catch (error) {
        void engine.close();
        throw error;
      }
    };

    /** host.started and host.stopped: a plugin's failure there is reported, never fatal. */
    const announce = (built: Kernel | undefined, hook: 'started' | 'stopped', started: HostSession, ctx?: ExtensionContext): void => {
      try {
        built?.hooks.host[hook].call(started);
      } catch (error) {
        if (ctx?.hasUI) ctx.ui.notify(`Workflow: ${printableLines(messageOf(error))}`, 'warning');
      }
    };

    /** Idempotent: Pi may converge on shutdown from several paths. */
    const stop = async (): Promise<void> => {
      const closing = session;
      const built = kernel;
      session = undefined;
      kernel = undefined;
      startError = undefined;
      try {
        if (closing !== undefined) announce(built, 'stopped', closing);
        closing?.close();
        await closing?.engine.close();
      } finally {
        if (activeHost()?.owner === owner) {
          if (built === undefined) resetWorkflowRegistry();
          else shutdownWorkflowSession(built);
          resetWorkflowPlugins();
          releaseActiveHost(owner);
        }
      }
    };

    pi.on('session_start', async (_event, ctx) => {
      if (session !== undefined || startError !== undefined || !claimActiveHost(owner)) return;
      const slot = activeHost();
      try {
        session = await start(ctx);
        if (session === undefined) return;
        announce(kernel, 'started', session, ctx);
        const { cwd, agentDir, projectTrusted } = session;
        if (hasCatalog(cwd, agentDir, projectTrusted)) tools.registerCatalog();
        const interrupted = recoverRuns(session);
        if (ctx.hasUI && interrupted.length > 0) void offerResume(session, ctx, interrupted);
        if (ctx.hasUI && ctx.mode === 'tui') showUpdateNotice({ agentDir, pkg: pkg(), notify: (message) => ctx.ui.notify(message, 'info'), commands: () => pi.getCommands() });
        if (slot !== undefined) slot.session = session;
      } catch (error) {
        // The registries stay frozen and the process stays held until shutdown: the failed start is this session's state.
        const failed = session;
        session = undefined;
        failed?.close();
        await failed?.engine.close();
        startError = error;
        if (slot !== undefined) slot.error = error;
        throw error;
      }
    });

    pi.on('session_shutdown', stop);
  };
}
