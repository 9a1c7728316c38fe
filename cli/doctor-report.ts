/**
 * The Doctor JSON of spec 1 "Other records": exactly `cwd`, `agentDir`,
 * `settingsPath`, `settings`, `settingsSources`, `trust`, `activeTools`,
 * `piExtensions`, `piSkills`, `functions`, `modelAliases`, `resourcePolicy`,
 * optional `agentInspection`, `diagnostics`; no schema-version field. What
 * each holds is documented in docs/wfcli.md and checked by
 * test/cli/doctor.schema.json. Pure: doctor.ts gathers the inputs.
 */
import { SELECTOR_DIAGNOSTIC_CODES, selectorDiagnostics, type JsonValue, type LoadedSettings, type RegisteredFunction, type RegisteredModelAlias, type SelectorLayer, type WorkflowSettings } from '../kernel/index.js';
import type { AgentInspection } from './agent-inspection.js';
import type { ProjectTrust, TrustSource } from '../plugins/host/trust-state.js';

export interface DoctorDiagnostic {
  readonly code: string;
  readonly severity: 'error' | 'warning';
  readonly message: string;
  /** The files the diagnostic concerns. */
  readonly paths?: readonly string[];
}

export interface SelectorArraysJson {
  readonly skills: readonly string[];
  readonly extensions: readonly string[];
  readonly tools: readonly string[];
}

export interface DoctorAlias {
  readonly name: string;
  readonly kind: 'static' | 'dynamic';
  /** The concrete `provider/model:thinking` it resolves to now; null when it cannot resolve (see diagnostics). */
  readonly target: string | null;
  /** A static alias's own target text (a concrete reference or another alias). */
  readonly declared?: string;
  readonly provenance: { readonly settingsPath: string } | { readonly extension: { readonly headline: string; readonly version: string } };
  /** A dynamic alias that a static one of the same name shadows (its resolver is not called). */
  readonly shadowed?: boolean;
}

export interface DoctorReport {
  readonly cwd: string;
  readonly agentDir: string;
  readonly settingsPath: string;
  /** The effective settings; null when they cannot be loaded (see diagnostics). */
  readonly settings: WorkflowSettings | null;
  readonly settingsSources: readonly { readonly kind: 'global' | 'project'; readonly path: string; readonly exists: boolean; readonly keys: readonly string[] }[];
  readonly trust: { readonly projectTrusted: boolean; readonly decidedBy: TrustSource };
  readonly activeTools: readonly string[];
  readonly piExtensions: readonly { readonly path: string; readonly resolvedPath: string; readonly tools: readonly string[]; readonly commands: readonly string[] }[];
  readonly piSkills: readonly { readonly name: string; readonly description: string; readonly path: string }[];
  readonly functions: readonly {
    readonly name: string;
    readonly description: string;
    readonly input: JsonValue;
    readonly output: JsonValue;
    readonly extension: { readonly headline: string; readonly version: string; readonly source?: string };
  }[];
  readonly modelAliases: readonly DoctorAlias[];
  readonly resourcePolicy: {
    readonly globalSettingsPath: string;
    readonly projectSettingsPath?: string;
    readonly selectorSources: { readonly global: SelectorArraysJson; readonly project?: SelectorArraysJson };
  };
  readonly agentInspection?: AgentInspection;
  readonly diagnostics: readonly DoctorDiagnostic[];
}

export interface DoctorInputs {
  readonly cwd: string;
  readonly agentDir: string;
  /** The active settings file: the trusted project's when it exists, else the global one. */
  readonly settingsPath: string;
  readonly globalPath: string;
  readonly projectPath: string;
  readonly trust: Pick<ProjectTrust, 'state' | 'decidedBy'>;
  /** Undefined when the settings cannot be loaded (the error is among `problems`). */
  readonly settings?: LoadedSettings;
  /** Parsed content of the active settings files that exist and parse, for checks loading refuses to get to. */
  readonly rawSettings: readonly { readonly path: string; readonly data: unknown }[];
  /** The `aliases` plugin state of the segment a launch would start: alias → concrete target. */
  readonly aliasMapping?: Readonly<Record<string, string>>;
  readonly functions: readonly RegisteredFunction[];
  readonly dynamicAliases: readonly RegisteredModelAlias[];
  readonly activeTools: readonly string[];
  readonly extensions: DoctorReport['piExtensions'];
  readonly skills: DoctorReport['piSkills'];
  readonly agentInspection?: AgentInspection;
  /** Everything that went wrong while gathering, already as diagnostics. */
  readonly problems: readonly DoctorDiagnostic[];
}

function arrays(layer: SelectorLayer): SelectorArraysJson {
  return { skills: [...layer.skills], extensions: [...layer.extensions], tools: [...layer.tools] };
}

/** The removed `disabledAgentResources` field makes loading fail, so it is looked for in the files themselves. */
function legacyFieldDiagnostics(rawSettings: DoctorInputs['rawSettings']): DoctorDiagnostic[] {
  const paths = rawSettings.filter(({ data }) => typeof data === 'object' && data !== null && Object.hasOwn(data, 'disabledAgentResources')).map(({ path }) => path);
  if (paths.length === 0) return [];
  return [
    {
      code: SELECTOR_DIAGNOSTIC_CODES.legacyDisabledResources,
      severity: 'error',
      message: '"disabledAgentResources" is no longer supported (even empty); remove it and use the skills, extensions and tools selectors',
      paths,
    },
  ];
}

function aliases(inputs: DoctorInputs): DoctorAlias[] {
  const statics = inputs.settings?.settings.modelAliases ?? {};
  const settingsPath = inputs.settings?.modelAliasesPath ?? inputs.globalPath;
  const target = (name: string): string | null => inputs.aliasMapping?.[name] ?? null;
  const list: DoctorAlias[] = Object.entries(statics).map(([name, declared]) => ({ name, kind: 'static', target: target(name), declared, provenance: { settingsPath } }));
  for (const alias of inputs.dynamicAliases) {
    const shadowed = Object.hasOwn(statics, alias.name);
    const { headline, version } = alias.extension;
    list.push({ name: alias.name, kind: 'dynamic', target: shadowed ? null : target(alias.name), provenance: { extension: { headline, version } }, ...(shadowed ? { shadowed } : {}) });
  }
  return list.sort((a, b) => (a.name === b.name ? (a.kind === 'static' ? -1 : 1) : a.name < b.name ? -1 : 1));
}

export function buildDoctorReport(inputs: DoctorInputs): DoctorReport {
  const { settings } = inputs;
  const trusted = inputs.trust.state === 'trusted';
  const sources = (settings?.sources ?? []).map((source) => ({
    ...source,
    keys: Object.entries(settings?.provenance ?? {})
      .filter(([, layer]) => layer === source.kind)
      .map(([key]) => key),
  }));
  const selectorSources = settings?.selectorSources;
  const diagnostics: DoctorDiagnostic[] = [
    ...inputs.problems,
    ...legacyFieldDiagnostics(inputs.rawSettings),
    ...(settings === undefined ? [] : selectorDiagnostics(settings)),
  ];
  return {
    cwd: inputs.cwd,
    agentDir: inputs.agentDir,
    settingsPath: inputs.settingsPath,
    settings: settings?.settings ?? null,
    settingsSources: sources,
    trust: { projectTrusted: trusted, decidedBy: inputs.trust.decidedBy },
    activeTools: [...inputs.activeTools],
    piExtensions: inputs.extensions,
    piSkills: inputs.skills,
    functions: inputs.functions.map((fn) => ({
      name: fn.name,
      description: fn.definition.description,
      input: fn.definition.input,
      output: fn.definition.output,
      extension: { headline: fn.extension.headline, version: fn.extension.version, ...(fn.extension.source === undefined ? {} : { source: fn.extension.source }) },
    })),
    modelAliases: aliases(inputs),
    resourcePolicy: {
      globalSettingsPath: inputs.globalPath,
      ...(trusted ? { projectSettingsPath: inputs.projectPath } : {}),
      selectorSources: {
        global: selectorSources === undefined ? { skills: [], extensions: [], tools: [] } : arrays(selectorSources.global),
        ...(selectorSources?.project === undefined ? {} : { project: arrays(selectorSources.project) }),
      },
    },
    ...(inputs.agentInspection === undefined ? {} : { agentInspection: inputs.agentInspection }),
    diagnostics,
  };
}

/** Warnings never fail doctor; an error diagnostic does. */
export function hasErrors(report: DoctorReport): boolean {
  return report.diagnostics.some((diagnostic) => diagnostic.severity === 'error');
}
