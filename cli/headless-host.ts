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
 * Only extensions load unless `withResources` asks for Pi's skills, prompt
 * templates, themes and context files too: nothing prompts this session.
 *
 * The session and its event bus stay alive until `dispose()`, which emits
 * `session_shutdown`, releases the session and only then clears the bus.
 *
 * `sessionId` makes the session the owner of that session's runs (`wfcli
 * resume`, `retry`, `stop` act as the session that launched the run). When
 * extensions fail to load, spec 2 rule 9 applies (provenance.ts).
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
  type EventBus,
  type Extension,
} from '@earendil-works/pi-coding-agent';
import { WorkflowError, contributeWorkflowPlugin, type ExtensionInfo, isWorkflowError, messageOf, resetWorkflowPlugins, resetWorkflowRegistry, resolveAgentDir } from '../kernel/index.js';
import { activeHost } from '../plugins/host/active-host.js';
import type { HostSession } from '../plugins/host/host-session.js';
import { PACKAGE_NAME, findPackage } from '../plugins/host/package-info.js';
import { setEmbedderTrust } from '../plugins/host/session-trust.js';
import type { ProjectTrust } from '../plugins/host/trust-state.js';
import { decideProjectTrust } from '../plugins/host/trust.js';
import { createLogFeed, type LogFeed } from './log-feed.js';
import { headlessOptionsPlugin, loadedEntries, unprovenError, unprovenRegistrations } from './provenance.js';

export interface LocalPiSessionOptions {
  readonly cwd: string;
  /** Pi's agent dir; default `PI_CODING_AGENT_DIR` else `~/.pi/agent`. */
  readonly agentDir?: string;
  /** `--approve` (true) or `--no-approve` (false); default the stored decision (plugins/host/trust.ts). */
  readonly trust?: boolean;
  /** The package whose entries load when it is not installed in Pi; default the package this module belongs to. */
  readonly packageRoot?: string;
  /** The session ID to act as (a stored run's `sessionId`); default a new one. */
  readonly sessionId?: string;
  /**
   * Spec 2 rule 9 when extensions failed to load and a registration cannot
   * be proven: `stop` (default) refuses to start; `report` starts anyway and
   * names them in `unproven` (`wfcli doctor` reports, it runs nothing).
   */
  readonly unproven?: 'stop' | 'report';
  /** Portable bundle modules registered before extensions load: proven sources, like loaded entries (rule 9). */
  readonly bundleModules?: readonly string[];
  /**
   * Whether Pi also reads its skills, prompt templates, themes and context
   * files (`wfcli doctor` reports the skills). Default false: the session
   * prompts no model, and a workflow's agents read their own (pi-transport).
   * Pi reads those of `packageRoot`'s package either way when it loads it as
   * an extra path, as it does for a path given on its command line.
   */
  readonly withResources?: boolean;
}

export interface LocalPiSession {
  readonly session: AgentSession;
  /** The workflow host the session started. */
  readonly host: HostSession;
  /** Whether the project's files are read (`trust.state` is `trusted`). */
  readonly projectTrusted: boolean;
  readonly trust: ProjectTrust;
  /** Registrations that could not be proven to come from a loaded extension (with `unproven: 'report'`). */
  readonly unproven: readonly ExtensionInfo[];
  /** Extension load failures and Pi's startup diagnostics: warnings for the CLI to print. */
  readonly warnings: readonly string[];
  /** The extensions Pi loaded for this cwd (this package's entries included). */
  readonly extensions: readonly Extension[];
  /** Extensions that failed to load: `"<path>": <error>`. */
  readonly loadErrors: readonly string[];
  /** The session's event bus: `WORKFLOW_*` events arrive here (docs/host.md "Events bridge"). */
  readonly events: EventBus;
  /** The script's log messages of this session's runs (never on the event bus: they are script text). */
  readonly logs: LogFeed;
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

/**
 * Pi's own startup warnings about its settings files (a malformed
 * `settings.json`), worded as `pi` prints them at startup; the settings
 * manager keeps them until drained (a Pi without `drainErrors` reports none).
 */
function settingsWarnings(settings: SettingsManager): string[] {
  const drain = (settings as { drainErrors?: () => readonly { scope?: string; path?: string; error: { message: string } }[] }).drainErrors;
  if (typeof drain !== 'function') return [];
  return drain.call(settings).map(({ scope, path, error }) => (path === undefined ? `Invalid ${scope ?? ''} settings: ${error.message}` : `Invalid settings file ${path}: ${error.message}`));
}

/** No session will start: the registrations the loaded factories made are dropped. */
function abandon(error: WorkflowError): WorkflowError {
  resetWorkflowRegistry();
  resetWorkflowPlugins();
  return error;
}

export async function createLocalPiSession(options: LocalPiSessionOptions): Promise<LocalPiSession> {
  const cwd = resolve(options.cwd);
  const agentDir = resolve(options.agentDir ?? resolveAgentDir());
  // The decision `pi -p` reaches here (docs/settings.md "Trust"); extensions' `project_trust` answers are not consulted.
  const trust = decideProjectTrust({ cwd, agentDir, override: options.trust });
  const projectTrusted = trust.state === 'trusted';
  const settingsManager = SettingsManager.create(cwd, agentDir, { projectTrusted });
  const packageRoot = options.packageRoot ?? findPackage()?.root;
  const own = packageRoot !== undefined && existsSync(packageRoot) && !installedInPi(new DefaultPackageManager({ cwd, agentDir, settingsManager })) ? [packageRoot] : [];
  const eventBus = createEventBus();
  // Reading every skill and prompt template (their YAML front matter) cost `wfcli run` about 20 ms of CPU (issue 34).
  const resources = options.withResources === true ? {} : { noSkills: true, noPromptTemplates: true, noThemes: true, noContextFiles: true };
  const services = await createAgentSessionServices({ cwd, agentDir, settingsManager, resourceLoaderOptions: { eventBus, additionalExtensionPaths: own, ...resources } });
  const loaded = services.resourceLoader.getExtensions();
  const loadErrors = loaded.errors.map((entry) => `"${entry.path}": ${entry.error}`);
  const warnings = [...settingsWarnings(settingsManager), ...services.diagnostics.filter((entry) => entry.type !== 'info').map((entry) => entry.message), ...loadErrors.map((error) => `Failed to load extension ${error}`)];
  let unproven: ExtensionInfo[] = [];
  if (loadErrors.length > 0) {
    // Extension factories ran while the resource loader loaded them: the registrations are in.
    const entries = loadedEntries([...loaded.extensions.map((extension) => extension.resolvedPath), ...(options.bundleModules ?? [])]);
    unproven = unprovenRegistrations(entries);
    if (unproven.length > 0 && options.unproven !== 'report') throw abandon(unprovenError(unproven, loadErrors));
    contributeWorkflowPlugin(headlessOptionsPlugin(entries, loadErrors));
  }
  const sessionManager = SessionManager.inMemory(cwd, options.sessionId === undefined ? undefined : { id: options.sessionId });
  // Feature check: a Pi that ignores the requested ID would act as a stranger to the run's session.
  if (options.sessionId !== undefined && sessionManager.getSessionId() !== options.sessionId) {
    throw abandon(new WorkflowError('CONFIG_ERROR', `This Pi version cannot open a session with the ID ${options.sessionId}, which owns the run`));
  }
  const { session } = await createAgentSessionFromServices({ services, sessionManager });
  // Contributed before the session starts: the host builds its kernel from the plugins contributed by then.
  const logs = createLogFeed();
  contributeWorkflowPlugin(logs.plugin);

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
    // The host this session starts takes this command's decision, not one of its own.
    setEmbedderTrust(trust);
    try {
      await session.bindExtensions({ mode: 'print', onError: (error) => void startErrors.push(`${error.extensionPath} (${error.event}): ${error.error}`) });
    } finally {
      setEmbedderTrust(undefined);
    }
    const started = activeHost();
    if (started?.error !== undefined) throw started.error;
    if (started?.session === undefined) {
      const why = [...warnings, ...startErrors];
      throw new WorkflowError(
        'CONFIG_ERROR',
        `The workflow host did not start in the headless Pi session: its entry (dist/src/index.js of ${PACKAGE_NAME}) is not loaded or is filtered out${why.length > 0 ? `; ${why.join('; ')}` : ''}`,
      );
    }
    return { session, host: started.session, projectTrusted, trust, unproven, warnings: [...warnings, ...startErrors], extensions: loaded.extensions, loadErrors, events: eventBus, logs: logs.feed, dispose };
  } catch (error) {
    await dispose().catch(() => undefined);
    throw isWorkflowError(error) ? error : new WorkflowError('CONFIG_ERROR', `The headless Pi session could not start: ${messageOf(error)}`, undefined, { cause: error });
  }
}
