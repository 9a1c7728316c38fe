/**
 * `wfcli doctor [--agent-options <json>] [--prompt <text>] [--json]`: what
 * Pi and the workflow host see in this project, in a headless Pi session
 * (so the answer is Pi's): settings and their sources, trust, active tools,
 * Pi extensions and skills, registered functions, model aliases with their
 * targets, the resource policy and its diagnostics, and with
 * `--agent-options` one generically prepared agent (agent-inspection.ts).
 *
 * The project must be trusted (spec 1; docs/settings.md "Trust"): the
 * stored decision, nothing in it that needs trust, or `--approve`.
 * Warnings never fail the command; an error diagnostic (settings that do not
 * load, `disabledAgentResources`, an alias that does not resolve, options that
 * cannot be prepared, a registration that cannot be proven) exits 1 after the
 * whole report is printed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { WorkflowError, isWorkflowError, loadSettings, loadingRegistry, messageOf, parseSettingsText, settingsPaths, type JsonValue, type LoadedSettings, type PreparationInspection } from '../kernel/index.js';
import type { AgentInspection } from './agent-inspection.js';
import { EXIT_FAILED, EXIT_OK, JSON_OPTION, UsageError, flag, printJson, stringOption, type CliIo, type CommandSpec, type ParsedCommand } from './command.js';
import { trustStatement } from '../plugins/host/trust-state.js';
import { formatDoctor } from './doctor-text.js';
import { buildDoctorReport, hasErrors, type DoctorDiagnostic } from './doctor-report.js';
import type { LocalPiSession } from './headless-host.js';
import { useBundledPi } from './pi-bundle.js';
import { openLocalSession, parseJsonOption } from './session.js';

function agentOptionsOf(text: string | undefined): Readonly<Record<string, JsonValue>> | undefined {
  const value = parseJsonOption('--agent-options', text);
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new WorkflowError('INVALID_METADATA', '--agent-options must be a JSON object of agent options');
  return value as Readonly<Record<string, JsonValue>>;
}

function diagnosticOf(error: unknown, prefix: string): DoctorDiagnostic {
  const path = isWorkflowError(error) && typeof error.details?.path === 'string' ? [error.details.path] : undefined;
  return { code: isWorkflowError(error) ? error.code : 'INTERNAL_ERROR', severity: 'error', message: `${prefix}: ${messageOf(error)}`, ...(path === undefined ? {} : { paths: path }) };
}

/** Parsed settings files that are active (the project's only when trusted); unreadable ones are left to loading to report. */
function rawSettings(paths: readonly string[]): { path: string; data: unknown }[] {
  return paths.flatMap((path) => {
    try {
      const text = readFileSync(path, 'utf8');
      return [{ path, data: parseSettingsText(text, path) }];
    } catch {
      return [];
    }
  });
}

/** The segment a launch would start, else the settings alone, each failure a diagnostic. */
async function preparation(local: LocalPiSession, problems: DoctorDiagnostic[]): Promise<{ settings?: LoadedSettings; inspected?: PreparationInspection }> {
  const { host } = local;
  try {
    const inspected = await host.engine.inspectPreparation(host.cwd);
    return { settings: inspected.settings, inspected };
  } catch (error) {
    problems.push(diagnosticOf(error, 'A launch here would be refused'));
  }
  try {
    return { settings: await loadSettings({ cwd: host.cwd, agentDir: host.agentDir, projectTrusted: host.projectTrusted }) };
  } catch {
    return {};
  }
}

function startupProblems(local: LocalPiSession): DoctorDiagnostic[] {
  const loadFailures = new Set(local.loadErrors.map((error) => `Failed to load extension ${error}`));
  return [
    ...local.loadErrors.map((message): DoctorDiagnostic => ({ code: 'EXTENSION_LOAD_FAILED', severity: 'warning', message: `Failed to load extension ${message}` })),
    ...local.warnings.filter((warning) => !loadFailures.has(warning)).map((message): DoctorDiagnostic => ({ code: 'PI_STARTUP_WARNING', severity: 'warning', message })),
    ...local.unproven.map((extension): DoctorDiagnostic => ({
      code: 'REGISTRATION_UNPROVEN',
      severity: 'error',
      message: `Extensions failed to load and the registration "${extension.headline}" cannot be proven to come from a loaded extension (${extension.source === undefined ? 'it declares no source' : `source ${extension.source}`}): wfcli run stops before running anything`,
    })),
  ];
}

async function run(parsed: ParsedCommand, io: CliIo): Promise<number> {
  const agentOptions = agentOptionsOf(stringOption(parsed, 'agent-options'));
  const prompt = stringOption(parsed, 'prompt');
  if (prompt !== undefined && agentOptions === undefined) throw new UsageError('--prompt goes with --agent-options');
  const local = await openLocalSession(io, { ...(flag(parsed, 'approve') ? { trust: true } : {}), unproven: 'report', withResources: true });
  try {
    const { host, session } = local;
    if (!host.projectTrusted) {
      const why = trustStatement(local.trust, host.agentDir);
      throw new WorkflowError('CONFIG_ERROR', `${why}, and wfcli doctor runs only in trusted projects: trust it with /trust in pi, or pass --approve`, { cwd: host.cwd, state: local.trust.state, files: [...local.trust.files] });
    }
    const problems = startupProblems(local);
    const { settings, inspected } = await preparation(local, problems);
    let agentInspection: AgentInspection | undefined;
    if (agentOptions !== undefined) {
      const { inspectAgent } = await import('./agent-inspection.js');
      const result = await inspectAgent(local, agentOptions, prompt);
      agentInspection = result.inspection;
      problems.push(...result.problems);
    }
    const { globalPath, projectPath } = settingsPaths(host.cwd, host.agentDir);
    const mapping = (inspected?.pluginState.aliases as { mapping?: unknown } | undefined)?.mapping;
    const registry = loadingRegistry();
    const report = buildDoctorReport({
      cwd: host.cwd,
      agentDir: host.agentDir,
      settingsPath: host.projectTrusted && existsSync(projectPath) ? projectPath : globalPath,
      globalPath,
      projectPath,
      trust: local.trust,
      ...(settings === undefined ? {} : { settings }),
      rawSettings: rawSettings(host.projectTrusted ? [globalPath, projectPath] : [globalPath]),
      ...(typeof mapping === 'object' && mapping !== null && !Array.isArray(mapping) ? { aliasMapping: mapping as Readonly<Record<string, string>> } : {}),
      functions: [...registry.functions().values()].sort((a, b) => (a.name < b.name ? -1 : 1)),
      dynamicAliases: [...registry.modelAliases().values()],
      activeTools: session.getActiveToolNames(),
      extensions: local.extensions.map((extension) => ({ path: extension.path, resolvedPath: extension.resolvedPath, tools: [...extension.tools.keys()], commands: [...extension.commands.keys()] })),
      skills: session.resourceLoader.getSkills().skills.map((skill) => ({ name: skill.name, description: skill.description, path: skill.filePath })),
      ...(agentInspection === undefined ? {} : { agentInspection }),
      problems,
    });
    if (flag(parsed, 'json')) printJson(io, report);
    // The Doctor JSON has exactly spec 1's fields; the text names the Pi (the session opened: this resolves at once).
    else io.stdout(formatDoctor(report, await useBundledPi()));
    return hasErrors(report) ? EXIT_FAILED : EXIT_OK;
  } finally {
    await local.dispose();
  }
}

export const doctorCommand: CommandSpec = {
  name: 'doctor',
  usage: ['wfcli doctor [--agent-options <json>] [--prompt <text>] [--approve] [--json]'],
  help: `  --agent-options <json>   inspect an agent prepared with these options (a JSON object),
                           without any provider call: model, tools, skills, extensions,
                           selector layers, system prompt
  --prompt <text>          the task text the inspected agent would get (with --agent-options)
  --approve                trust the project for this inspection
  --json                   print the Doctor JSON (docs/wfcli.md lists its fields)

The project must be trusted (the stored decision, nothing in it that needs
trust, or --approve; docs/settings.md "Trust"). Warnings never fail the command; error diagnostics
(settings that do not load, "disabledAgentResources", an alias that does not
resolve, agent options that cannot be prepared) exit 1 after the report.
"wfcli doctor cleanup" removes old terminal runs.`,
  options: { 'agent-options': { type: 'string' }, prompt: { type: 'string' }, approve: { type: 'boolean' }, ...JSON_OPTION },
  run,
};
