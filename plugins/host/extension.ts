/**
 * The Pi extension factory of the workflow host (docs/host.md). The factory
 * only builds the kernel and registers tools and `/workflow`; everything that
 * holds resources starts at `session_start` and stops at `session_shutdown`:
 *
 * - start: freeze the workflow registry, create the engine for Pi's session
 *   ID with Pi's trust decision, register `workflow_catalog` when there is
 *   something to list, mark orphaned runs interrupted and (with UI) offer to
 *   resume them, show the update notice (interactive mode only);
 * - shutdown (idempotent): interrupt what still executes, close the engine,
 *   reset the registry.
 *
 * One workflow host runs per process: the registry is process-wide. A Pi
 * session created inside a running host (a workflow agent's session loading
 * the same package) gets a passive copy that registers nothing.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ExtensionAPI, ExtensionFactory } from '@earendil-works/pi-coding-agent';
import {
  createKernel,
  loadingRegistry,
  resolveAgentDir,
  settingsPaths,
  shutdownWorkflowSession,
  startWorkflowSession,
  type KernelPlugin,
} from '../../kernel/index.js';
import { registerWorkflowCommand } from './command/index.js';
import type { DiagnosticsProvider } from './diagnostics.js';
import { HostEngine } from './host-engine.js';
import { HostSession } from './host-session.js';
import { findPackage, type PackageInfo } from './package-info.js';
import { createHostPlugin } from './plugin.js';
import { offerResume, recoverRuns } from './recovery.js';
import { WorkflowTools } from './tools/index.js';
import { showUpdateNotice } from './update-notice.js';

export interface WorkflowHostOptions {
  /** The feature plugins of each extension runtime's kernel, in order; the host plugin comes last. */
  readonly plugins: () => readonly KernelPlugin[];
  /** Pi's agent dir; default `PI_CODING_AGENT_DIR` else `~/.pi/agent`. */
  readonly agentDir?: string;
  /** Root of run storage; default `~/.pi/workflows`. */
  readonly root?: string;
  readonly home?: string;
  /** The installed package (its CHANGELOG.md); default the package this module belongs to. */
  readonly package?: PackageInfo;
  /** Feature plugins' parts of failure diagnostics (plugins cannot import each other, so the entry wires them). */
  readonly diagnostics?: readonly DiagnosticsProvider[];
}

/** Which runtime holds the process-wide workflow session. */
const ACTIVE_HOST = Symbol.for('pi-extensible-workflows.active-host');

function activeHost(): unknown {
  return Reflect.get(globalThis, ACTIVE_HOST);
}

function setActiveHost(owner: object | undefined): void {
  Reflect.set(globalThis, ACTIVE_HOST, owner);
}

/** The catalog is worth a tool when the registry has functions or aliases, or settings are in effect. */
function hasCatalog(cwd: string, agentDir: string, projectTrusted: boolean): boolean {
  const registry = loadingRegistry();
  if (registry.functions().size > 0 || registry.modelAliases().size > 0) return true;
  const { globalPath, projectPath } = settingsPaths(cwd, agentDir);
  return existsSync(globalPath) || (projectTrusted && existsSync(projectPath));
}

export function createWorkflowHostExtension(options: WorkflowHostOptions): ExtensionFactory {
  return (pi: ExtensionAPI) => {
    if (activeHost() !== undefined) return;
    const owner = {};
    let session: HostSession | undefined;
    const kernel = createKernel({
      plugins: [
        ...options.plugins(),
        createHostPlugin({ eventBus: () => pi.events, tools: () => session, rootModel: () => session?.rootModel(), rootTools: () => session?.rootTools() }),
      ],
    });
    const tools = new WorkflowTools(pi, () => session);
    tools.registerCore();
    registerWorkflowCommand(pi, () => session);

    /** Idempotent: Pi may converge on shutdown from several paths. */
    const stop = async (): Promise<void> => {
      const current = session;
      session = undefined;
      try {
        current?.close();
        await current?.engine.close();
      } finally {
        if (activeHost() === owner) {
          shutdownWorkflowSession(kernel);
          setActiveHost(undefined);
        }
      }
    };
    pi.on('session_start', async (_event, ctx) => {
      if (session !== undefined || (activeHost() !== undefined && activeHost() !== owner)) return;
      startWorkflowSession(kernel);
      setActiveHost(owner);
      try {
        const agentDir = options.agentDir ?? resolveAgentDir();
        const projectTrusted = ctx.isProjectTrusted();
        const cwd = resolve(ctx.cwd);
        const engine = new HostEngine({
          kernel,
          sessionId: ctx.sessionManager.getSessionId(),
          agentDir,
          projectTrusted,
          ...(options.root === undefined ? {} : { root: options.root }),
          ...(options.home === undefined ? {} : { home: options.home }),
          onWarning: (error) => {
            if (ctx.hasUI) ctx.ui.notify(`Workflow: ${error.message}`, 'warning');
          },
        });
        session = new HostSession({
          pi,
          ctx,
          engine,
          cwd,
          sessionId: engine.sessionId,
          agentDir,
          projectTrusted,
          ...(options.diagnostics === undefined ? {} : { diagnostics: options.diagnostics }),
        });
        if (hasCatalog(cwd, agentDir, projectTrusted)) tools.registerCatalog();
        const interrupted = recoverRuns(session);
        if (ctx.hasUI && interrupted.length > 0) void offerResume(session, ctx, interrupted);
        if (ctx.hasUI && ctx.mode === 'tui') showUpdateNotice({ agentDir, pkg: options.package ?? findPackage(), notify: (message) => ctx.ui.notify(message, 'info') });
      } catch (error) {
        await stop();
        throw error;
      }
    });

    pi.on('session_shutdown', stop);
  };
}
