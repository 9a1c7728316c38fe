/**
 * Reads, validates and merges the global and trusted project settings files
 * (spec 1 "Settings files"). Loading only reads; it never writes.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WorkflowError, isWorkflowError, messageOf } from '../errors.js';
import { deepFreeze } from '../json.js';
import type { JsonValue } from '../json.js';
import { parseSettingsText } from './parse.js';
import { settingsPaths } from './paths.js';
import {
  DEFAULT_SETTINGS,
  SETTINGS_KEYS,
  validateRunOptions,
  validateSettingsFile,
} from './schema.js';
import type { SettingsFileData, SettingsFileKind, SettingsKey, WorkflowSettings } from './schema.js';
import { normalizeSettingsSelector } from './selectors.js';

export type SettingsLayer = 'default' | 'global' | 'project' | 'run';
export type SettingsProvenance = { readonly [K in SettingsKey]: SettingsLayer };

export interface RunOptions {
  concurrency?: number;
}

export interface LoadSettingsInput {
  cwd: string;
  agentDir: string;
  projectTrusted: boolean;
  home?: string;
  runOptions?: RunOptions;
}

export interface SettingsSource {
  readonly kind: SettingsFileKind;
  readonly path: string;
  readonly exists: boolean;
}

/** One layer's selectors; `extensions` are already normalized. */
export interface SelectorLayer {
  readonly path: string;
  readonly skills: readonly string[];
  readonly extensions: readonly string[];
  readonly tools: readonly string[];
}

export interface SelectorSources {
  readonly global: SelectorLayer;
  readonly project?: SelectorLayer;
}

/** The `extensionSettings` map of one settings file that sets it. */
export interface ExtensionSettingsSource {
  readonly kind: SettingsFileKind;
  readonly path: string;
  readonly value: Readonly<Record<string, JsonValue>>;
}

export interface LoadedSettings {
  readonly settings: WorkflowSettings;
  readonly globalPath: string;
  readonly projectPath: string;
  readonly projectTrusted: boolean;
  readonly sources: readonly SettingsSource[];
  readonly provenance: SettingsProvenance;
  /** The file whose `modelAliases` map is in effect; undefined when none set one. */
  readonly modelAliasesPath: string | undefined;
  readonly selectorSources: SelectorSources;
  /** Each active file's own `extensionSettings` (global, then trusted project), for the extensions' validators. */
  readonly extensionSettingsSources: readonly ExtensionSettingsSource[];
  /** The file whose `extensionSettings` map is in effect; undefined when none set one. */
  readonly extensionSettingsPath: string | undefined;
}

interface FileLayer {
  readonly kind: SettingsFileKind;
  readonly path: string;
  readonly exists: boolean;
  readonly data: SettingsFileData;
  readonly selectors: SelectorLayer;
}

export async function loadSettings(input: LoadSettingsInput): Promise<LoadedSettings> {
  const home = input.home ?? os.homedir();
  const { globalPath, projectPath } = settingsPaths(input.cwd, input.agentDir);
  const globalLayer = await readLayer('global', globalPath, home);
  const projectLayer = input.projectTrusted ? await readLayer('project', projectPath, home) : undefined;
  if (input.runOptions !== undefined) validateRunOptions(input.runOptions);

  const layers = projectLayer === undefined ? [globalLayer] : [globalLayer, projectLayer];
  const { settings, provenance, modelAliasesPath } = mergeLayers(layers, input.runOptions);
  const selectorSources: SelectorSources =
    projectLayer === undefined
      ? { global: globalLayer.selectors }
      : { global: globalLayer.selectors, project: projectLayer.selectors };

  return deepFreeze({
    settings,
    globalPath,
    projectPath,
    projectTrusted: input.projectTrusted,
    sources: layers.map(({ kind, path: filePath, exists }) => ({ kind, path: filePath, exists })),
    provenance,
    modelAliasesPath,
    selectorSources,
    extensionSettingsSources: layers.flatMap(({ kind, path: filePath, data }) =>
      data.extensionSettings === undefined ? [] : [{ kind, path: filePath, value: data.extensionSettings }],
    ),
    extensionSettingsPath: [...layers].reverse().find((layer) => layer.data.extensionSettings !== undefined)?.path,
  });
}

async function readLayer(kind: SettingsFileKind, filePath: string, home: string): Promise<FileLayer> {
  const text = await readSettingsText(filePath);
  const data = text === undefined ? {} : validateSettingsFile(parseSettingsText(text, filePath), kind, filePath);
  const selectors: SelectorLayer = {
    path: filePath,
    skills: [...(data.skills ?? [])],
    extensions: normalizeExtensions(data.extensions ?? [], filePath, home),
    tools: [...(data.tools ?? [])],
  };
  return { kind, path: filePath, exists: text !== undefined, data, selectors };
}

/** A missing file means defaults; anything else unreadable is a configuration error. */
async function readSettingsText(filePath: string): Promise<string | undefined> {
  try {
    return await readFile(filePath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new WorkflowError('CONFIG_ERROR', `Cannot read settings file ${filePath}: ${messageOf(error)}`, {
      path: filePath,
    });
  }
}

function normalizeExtensions(selectors: readonly string[], filePath: string, home: string): string[] {
  const settingsDir = path.dirname(filePath);
  return selectors.map((selector, index) => {
    try {
      return normalizeSettingsSelector(selector, settingsDir, home);
    } catch (error) {
      if (!isWorkflowError(error)) throw error;
      throw new WorkflowError('CONFIG_ERROR', `Invalid settings in ${filePath}: /extensions/${index} ${error.message}`, {
        path: filePath,
        key: 'extensions',
      });
    }
  });
}

interface Merged {
  settings: WorkflowSettings;
  provenance: SettingsProvenance;
  modelAliasesPath: string | undefined;
}

/** Scalars and maps: the last layer that sets a key wins whole. Selector arrays append. */
function mergeLayers(layers: readonly FileLayer[], runOptions: RunOptions | undefined): Merged {
  const settings: WorkflowSettings = {
    ...DEFAULT_SETTINGS,
    modelAliases: nullPrototypeCopy(DEFAULT_SETTINGS.modelAliases),
    extensionSettings: nullPrototypeCopy(DEFAULT_SETTINGS.extensionSettings),
  };
  const provenance = Object.fromEntries(SETTINGS_KEYS.map((key) => [key, 'default'])) as Record<
    SettingsKey,
    SettingsLayer
  >;
  let modelAliasesPath: string | undefined;
  const skills: string[] = [];
  const extensions: string[] = [];
  const tools: string[] = [];

  for (const layer of layers) {
    const { data } = layer;
    for (const key of SETTINGS_KEYS) {
      if (data[key] !== undefined) provenance[key] = layer.kind;
    }
    if (data.concurrency !== undefined) settings.concurrency = data.concurrency;
    if (data.backgroundWidget !== undefined) settings.backgroundWidget = data.backgroundWidget;
    if (data.codemodeTools !== undefined) settings.codemodeTools = data.codemodeTools;
    if (data.modelAliases !== undefined) {
      settings.modelAliases = nullPrototypeCopy(data.modelAliases);
      modelAliasesPath = layer.path;
    }
    if (data.extensionSettings !== undefined) {
      settings.extensionSettings = nullPrototypeCopy<JsonValue>(data.extensionSettings);
    }
    skills.push(...layer.selectors.skills);
    extensions.push(...layer.selectors.extensions);
    tools.push(...layer.selectors.tools);
  }
  if (runOptions?.concurrency !== undefined) {
    settings.concurrency = runOptions.concurrency;
    provenance.concurrency = 'run';
  }
  return { settings: { ...settings, skills, extensions, tools }, provenance, modelAliasesPath };
}

/** Lookups by user-chosen names must never hit Object.prototype members. */
function nullPrototypeCopy<T>(map: Readonly<Record<string, T>>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, map);
}
