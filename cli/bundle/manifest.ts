/**
 * The portable bundle manifest (`manifest.json`, spec 1 "Portable bundle
 * manifest", docs/bundles.md): version 2 is what `wfcli bundle` writes;
 * launchers also read version 1, the first format (a command, a workflow and
 * a payload with its hash: no bundler, dependency or needs records), read as
 * version 2 with those empty. Validated with ajv on both sides.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowError, compileOnFirstUse, lazyAjv, formatAjvErrors } from '../../kernel/index.js';

export const MANIFEST_FILE = 'manifest.json';
export const PAYLOAD_FILE = 'payload/extension.mjs';
export const MANIFEST_VERSION = 2;

/** What a bundle's workflow needs from the machine it runs on; `<command> setup` checks each. */
export interface BundleNeeds {
  /** Model alias names given as a literal `model` option. */
  readonly aliases: readonly string[];
  /** Tool names given in a literal `tools` array. */
  readonly tools: readonly string[];
  /** Programs a literal `shell(...)` command starts. */
  readonly commands: readonly string[];
  /** `process.env.NAME` reads. */
  readonly environment: readonly string[];
}

export interface BundleManifest extends BundleNeeds {
  readonly version: 2;
  /** The launcher's name: the executable `<command>` beside the manifest. */
  readonly command: string;
  /** The registered workflow function the launcher runs. */
  readonly workflow: string;
  /** The defining extension module (its registration's `source`) and the export replayed. */
  readonly source: { readonly module: string; readonly export: 'default' };
  readonly bundler: { readonly name: 'rollup'; readonly version: string };
  /** The engine that wrote the bundle; setup installs this version when none is installed. */
  readonly engine: { readonly name: string; readonly version: string };
  /** The extension's declared `dependencies`, inlined into the payload. */
  readonly dependencies: readonly string[];
  /** `bytes` is absent only in a version 1 manifest. */
  readonly payload: { readonly path: typeof PAYLOAD_FILE; readonly sha256: string; readonly bytes?: number };
}

const NAME = { type: 'string', minLength: 1 } as const;
const NAMES = { type: 'array', items: NAME, uniqueItems: true } as const;
const SHA256 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
const COMMAND = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' } as const;
const PAYLOAD_PATH = { const: PAYLOAD_FILE } as const;

const V2_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['version', 'command', 'workflow', 'source', 'bundler', 'engine', 'dependencies', 'payload', 'aliases', 'tools', 'commands', 'environment'],
  properties: {
    version: { const: 2 },
    command: COMMAND,
    workflow: NAME,
    source: { type: 'object', additionalProperties: false, required: ['module', 'export'], properties: { module: NAME, export: { const: 'default' } } },
    bundler: { type: 'object', additionalProperties: false, required: ['name', 'version'], properties: { name: { const: 'rollup' }, version: NAME } },
    engine: { type: 'object', additionalProperties: false, required: ['name', 'version'], properties: { name: NAME, version: NAME } },
    dependencies: NAMES,
    payload: {
      type: 'object',
      additionalProperties: false,
      required: ['path', 'sha256', 'bytes'],
      properties: { path: PAYLOAD_PATH, sha256: SHA256, bytes: { type: 'integer', minimum: 0 } },
    },
    aliases: NAMES,
    tools: NAMES,
    commands: NAMES,
    environment: NAMES,
  },
} as const;

/** Version 1: the launcher, the workflow, the payload and its hash. */
interface BundleManifestV1 {
  readonly version: 1;
  readonly command: string;
  readonly workflow: string;
  readonly payload: typeof PAYLOAD_FILE;
  readonly sha256: string;
}

const V1_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['version', 'command', 'workflow', 'payload', 'sha256'],
  properties: { version: { const: 1 }, command: COMMAND, workflow: NAME, payload: PAYLOAD_PATH, sha256: SHA256 },
} as const;

const ajv = lazyAjv();
const validateV2 = compileOnFirstUse<BundleManifest>(V2_SCHEMA, ajv);
const validateV1 = compileOnFirstUse<BundleManifestV1>(V1_SCHEMA, ajv);

/** A version 1 manifest as version 2: nothing was recorded about the build or the needs. */
function fromV1(v1: BundleManifestV1): BundleManifest {
  return {
    version: 2,
    command: v1.command,
    workflow: v1.workflow,
    source: { module: PAYLOAD_FILE, export: 'default' },
    bundler: { name: 'rollup', version: 'unknown' },
    engine: { name: 'pi-extensible-workflows', version: 'unknown' },
    dependencies: [],
    payload: { path: PAYLOAD_FILE, sha256: v1.sha256 },
    aliases: [],
    tools: [],
    commands: [],
    environment: [],
  };
}

/** Validates a parsed manifest of version 1 or 2; INVALID_METADATA naming what is wrong. */
export function parseManifest(data: unknown, where: string): BundleManifest {
  const version = typeof data === 'object' && data !== null ? (data as { version?: unknown }).version : undefined;
  if (version === 2) {
    if (validateV2(data)) return data;
    throw new WorkflowError('INVALID_METADATA', `${where} is not a valid version 2 bundle manifest: ${formatAjvErrors(validateV2.errors)}`, { path: where });
  }
  if (version === 1) {
    if (validateV1(data)) return fromV1(data);
    throw new WorkflowError('INVALID_METADATA', `${where} is not a valid version 1 bundle manifest: ${formatAjvErrors(validateV1.errors)}`, { path: where });
  }
  throw new WorkflowError('INVALID_METADATA', `${where} has bundle manifest version ${JSON.stringify(version ?? null)}; this launcher reads versions 1 and 2`, { path: where });
}

export function readManifest(bundleDir: string): BundleManifest {
  const path = join(bundleDir, MANIFEST_FILE);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new WorkflowError('INVALID_METADATA', `Cannot read the bundle manifest ${path}: ${(error as Error).message}`, { path });
  }
  return parseManifest(data, path);
}

/** For the writer: the manifest it builds must pass the schema it will be read with. */
export function checkManifest(manifest: BundleManifest): BundleManifest {
  return parseManifest(manifest, MANIFEST_FILE);
}
