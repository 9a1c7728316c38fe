/**
 * The headless Pi session `wfcli` works in (spec 1, the host session API of
 * `createLocalPiSession()`): a real Pi session created with the SDK for the
 * cwd, whose resource loader loads what `pi` would load there (global
 * packages, project packages when the project is trusted, package filters
 * honoured), plus this package's own `pi.extensions` entries when the user
 * has not installed it in Pi. The host entry then builds its kernel at
 * `session_start` exactly as inside Pi, from the plugin entries that loaded,
 * so the CLI and Pi never disagree about features. Nothing calls a model
 * unless a workflow's agent does, with the user's models and auth.
 *
 * The session and its event bus stay alive until `dispose()`, which emits
 * `session_shutdown`, releases the session and only then clears the bus.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  DefaultPackageManager,
  SessionManager,
  SettingsManager,
  createAgentSessionFromServices,
  createAgentSessionServices,
  createEventBus,
  type AgentSession,
} from '@earendil-works/pi-coding-agent';
import { WorkflowError, isWorkflowError, messageOf, resolveAgentDir } from '../kernel/index.js';
import { activeHost } from '../plugins/host/active-host.js';
import type { HostSession } from '../plugins/host/host-session.js';
import { PACKAGE_NAME, findPackage } from '../plugins/host/package-info.js';
import { headlessProjectTrust } from './trust.js';

export interface LocalPiSessionOptions {
  readonly cwd: string;
  /** Pi's agent dir; default `PI_CODING_AGENT_DIR` else `~/.pi/agent`. */
  readonly agentDir?: string;
  /** `--approve` (true) or `--no-approve` (false); default Pi's decision (cli/trust.ts). */
  readonly trust?: boolean;
  /** The package whose entries load when it is not installed in Pi; default the package this module belongs to. */
  readonly packageRoot?: string;
}

export interface LocalPiSession {
  readonly session: AgentSession;
  /** The workflow host the session started. */
  readonly host: HostSession;
  readonly projectTrusted: boolean;
  /** Extension load failures and Pi's startup diagnostics: warnings for the CLI to print. */
  readonly warnings: readonly string[];
  /** Emits `session_shutdown`, disposes the session, then clears the event bus. Idempotent; await it. */
  dispose(): Promise<void>;
}

function packageName(dir: string): unknown {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name;
  } catch {
    return undefined;
  }
}

/** Whether the user's Pi settings (for this trust) install this package, whatever its filters. */
function installedInPi(packages: DefaultPackageManager): boolean {
  return packages.listConfiguredPackages().some((entry) => entry.installedPath !== undefined && packageName(entry.installedPath) === PACKAGE_NAME);
}

export async function createLocalPiSession(options: LocalPiSessionOptions): Promise<LocalPiSession> {
  const cwd = resolve(options.cwd);
  const agentDir = resolve(options.agentDir ?? resolveAgentDir());
  const projectTrusted = headlessProjectTrust({
    cwd,
    agentDir,
    ...(options.trust === undefined ? {} : { override: options.trust }),
    settings: SettingsManager.create(cwd, agentDir, { projectTrusted: false }),
  });
  const settingsManager = SettingsManager.create(cwd, agentDir, { projectTrusted });
  const packageRoot = options.packageRoot ?? findPackage()?.root;
  const own = packageRoot !== undefined && existsSync(packageRoot) && !installedInPi(new DefaultPackageManager({ cwd, agentDir, settingsManager })) ? [packageRoot] : [];
  const eventBus = createEventBus();
  const services = await createAgentSessionServices({ cwd, agentDir, settingsManager, resourceLoaderOptions: { eventBus, additionalExtensionPaths: own } });
  const warnings = [
    ...services.diagnostics.filter((entry) => entry.type !== 'info').map((entry) => entry.message),
    ...services.resourceLoader.getExtensions().errors.map((entry) => `Failed to load extension "${entry.path}": ${entry.error}`),
  ];
  const { session } = await createAgentSessionFromServices({ services, sessionManager: SessionManager.inMemory(cwd) });

  let disposed: Promise<void> | undefined;
  const dispose = (): Promise<void> => {
    disposed ??= (async () => {
      try {
        if (session.extensionRunner.hasHandlers('session_shutdown')) await session.extensionRunner.emit({ type: 'session_shutdown', reason: 'quit' });
      } finally {
        session.dispose();
        eventBus.clear();
      }
    })();
    return disposed;
  };

  const startErrors: string[] = [];
  try {
    await session.bindExtensions({ mode: 'print', onError: (error) => void startErrors.push(`${error.extensionPath} (${error.event}): ${error.error}`) });
    const started = activeHost();
    if (started?.error !== undefined) throw started.error;
    if (started?.session === undefined) {
      const why = [...warnings, ...startErrors];
      throw new WorkflowError(
        'CONFIG_ERROR',
        `The workflow host did not start in the headless Pi session: its entry (dist/src/index.js of ${PACKAGE_NAME}) is not loaded or is filtered out${why.length > 0 ? `; ${why.join('; ')}` : ''}`,
      );
    }
    // --no-approve is an explicit choice to run without the project's settings and resources.
    if (options.trust === false) started.session.engine.excludeProjectResources();
    return { session, host: started.session, projectTrusted, warnings: [...warnings, ...startErrors], dispose };
  } catch (error) {
    await dispose().catch(() => undefined);
    throw isWorkflowError(error) ? error : new WorkflowError('CONFIG_ERROR', `The headless Pi session could not start: ${messageOf(error)}`, undefined, { cause: error });
  }
}
