/**
 * `<command> setup` (spec 1 `wfcli bundle`, docs/bundles.md): checks that
 * this machine can run the bundle, then stores the local state file
 * `state.json` beside the manifest, which the launcher requires before a run.
 *
 * Checked: the installed host (Pi's SDK loads; its version is recorded), the
 * engine (the launcher.mjs that got here found it; it offers the install when
 * it is missing), the payload's hash, its workflow registering, and each need
 * the manifest records: model aliases,
 * tools (the headless session's active tools), commands (on PATH) and
 * environment variables. Every missing piece is named in one CONFIG_ERROR.
 * An alias counts when a launch here resolves it (the aliases plugin's
 * mapping: settings aliases and extensions' dynamic ones).
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { WorkflowError, compileOnFirstUse, formatAjvErrors, messageOf, writeFileAtomic } from '../../kernel/index.js';
import { findPackage } from '../../plugins/host/package-info.js';
import type { CliIo } from '../command.js';
import type { LocalPiSession } from '../headless-host.js';
import { withLocalSession } from '../session.js';
import type { BundleManifest } from './manifest.js';
import { registerPayload } from './payload.js';

export const STATE_FILE = 'state.json';

export interface BundleState {
  readonly version: 1;
  readonly command: string;
  readonly workflow: string;
  readonly payloadSha256: string;
  readonly engineVersion: string;
  readonly hostVersion: string;
  readonly checkedAt: string;
}

const validateState = compileOnFirstUse<BundleState>({
  type: 'object',
  additionalProperties: false,
  required: ['version', 'command', 'workflow', 'payloadSha256', 'engineVersion', 'hostVersion', 'checkedAt'],
  properties: {
    version: { const: 1 },
    command: { type: 'string' },
    workflow: { type: 'string' },
    payloadSha256: { type: 'string' },
    engineVersion: { type: 'string' },
    hostVersion: { type: 'string' },
    checkedAt: { type: 'string' },
  },
});

function engineVersion(): string {
  return findPackage()?.version ?? 'unknown';
}

/** Pi's SDK as the engine imports it; its version, feature-detected. */
async function hostVersion(): Promise<string> {
  let sdk: { VERSION?: unknown };
  try {
    sdk = (await import('@earendil-works/pi-coding-agent')) as { VERSION?: unknown };
  } catch (error) {
    throw new WorkflowError('CONFIG_ERROR', `The host (Pi, @earendil-works/pi-coding-agent) is not installed where the engine can load it: ${messageOf(error)}. Install Pi (npm install -g @earendil-works/pi-coding-agent) and run setup again`);
  }
  return typeof sdk.VERSION === 'string' ? sdk.VERSION : 'unknown';
}

function onPath(program: string): boolean {
  const candidates = program.includes('/') ? [program] : (process.env['PATH'] ?? '').split(delimiter).filter((dir) => dir !== '').map((dir) => join(dir, program));
  return candidates.some((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The manifest's needs this session and machine do not meet, one line each. */
export async function missingNeeds(local: LocalPiSession, manifest: BundleManifest): Promise<string[]> {
  const missing: string[] = [];
  if (manifest.aliases.length > 0) {
    // The aliases a launch here resolves: settings aliases and extensions' dynamic ones, as doctor reports them.
    let mapping: Readonly<Record<string, unknown>> = {};
    try {
      const inspected = await local.host.engine.inspectPreparation(local.host.cwd);
      const found = (inspected.pluginState['aliases'] as { mapping?: unknown } | undefined)?.mapping;
      if (typeof found === 'object' && found !== null && !Array.isArray(found)) mapping = found as Readonly<Record<string, unknown>>;
    } catch (error) {
      missing.push(`model aliases (a launch here is refused: ${messageOf(error)})`);
    }
    for (const alias of manifest.aliases) {
      if (!Object.prototype.hasOwnProperty.call(mapping, alias)) missing.push(`model alias "${alias}" (not configured here: add it to modelAliases of the workflow settings)`);
    }
  }
  const tools = new Set(local.session.getActiveToolNames());
  for (const tool of manifest.tools) if (!tools.has(tool)) missing.push(`tool "${tool}" (not an active tool of Pi here)`);
  for (const command of manifest.commands) if (!onPath(command)) missing.push(`command "${command}" (not found on PATH)`);
  for (const name of manifest.environment) if (process.env[name] === undefined) missing.push(`environment variable "${name}" (not set)`);
  return missing;
}

export async function setupBundle(bundleDir: string, manifest: BundleManifest, io: CliIo, trust: boolean | undefined): Promise<BundleState> {
  const host = await hostVersion();
  const payload = await registerPayload(bundleDir, manifest);
  return withLocalSession({ ...io, bundleModules: [payload] }, trust === undefined ? {} : { trust }, async (local) => {
    const missing = await missingNeeds(local, manifest);
    if (missing.length > 0) {
      throw new WorkflowError('CONFIG_ERROR', `The bundle "${manifest.command}" cannot run here; missing: ${missing.join('; ')}`, { missing });
    }
    const state: BundleState = {
      version: 1,
      command: manifest.command,
      workflow: manifest.workflow,
      payloadSha256: manifest.payload.sha256,
      engineVersion: engineVersion(),
      hostVersion: host,
      checkedAt: new Date().toISOString(),
    };
    const path = join(bundleDir, STATE_FILE);
    try {
      writeFileAtomic(path, `${JSON.stringify(state, null, 2)}\n`);
    } catch (error) {
      throw new WorkflowError('CONFIG_ERROR', `Cannot store the bundle's state file ${path}: ${messageOf(error)}; the bundle directory must be writable by whoever runs setup`, { path });
    }
    return state;
  });
}

/** The state setup stored, CONFIG_ERROR when there is none or it no longer matches the bundle or the engine. */
export function requireState(bundleDir: string, manifest: BundleManifest): BundleState {
  const path = join(bundleDir, STATE_FILE);
  const again = `run "${join(bundleDir, manifest.command)} setup"`;
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new WorkflowError('CONFIG_ERROR', `The bundle "${manifest.command}" is not set up on this machine: ${again} first`, { path });
  }
  if (!validateState(data)) throw new WorkflowError('CONFIG_ERROR', `${path} is not a valid bundle state (${formatAjvErrors(validateState.errors)}): ${again}`, { path });
  if (data.payloadSha256 !== manifest.payload.sha256) throw new WorkflowError('CONFIG_ERROR', `The bundle changed since setup: ${again}`, { path });
  if (data.engineVersion !== engineVersion()) {
    throw new WorkflowError('CONFIG_ERROR', `The engine changed since setup (${data.engineVersion}, now ${engineVersion()}): ${again}`, { path });
  }
  return data;
}
