/**
 * Loading a bundle's payload in the launcher (spec 2 `source`, rule 9): its
 * hash is checked against the manifest, then its default factory is called
 * without a host API (there is no Pi session yet; native registrations in
 * it must check that the API exists), so its workflow registrations are in
 * the registry before Pi loads any extension, and its module is a proven
 * source for the headless session (`CliIo.bundleModules`).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WorkflowError, isWorkflowError, loadingRegistry, messageOf } from '../../kernel/index.js';
import type { BundleManifest } from './manifest.js';

export function payloadPath(bundleDir: string, manifest: BundleManifest): string {
  return join(bundleDir, manifest.payload.path);
}

/** The payload's SHA-256, CONFIG_ERROR when it is missing or not the one the manifest records. */
export function verifyPayload(bundleDir: string, manifest: BundleManifest): string {
  const path = payloadPath(bundleDir, manifest);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new WorkflowError('CONFIG_ERROR', `The bundle's payload ${path} cannot be read: ${messageOf(error)}`, { path });
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== manifest.payload.sha256) {
    throw new WorkflowError('CONFIG_ERROR', `The bundle's payload ${path} is not the one its manifest records (sha256 ${sha256}, expected ${manifest.payload.sha256}): bundle the workflow again`, {
      path,
      sha256,
      expected: manifest.payload.sha256,
    });
  }
  return sha256;
}

/** Registers the payload's capabilities (the bundled workflow among them); returns the module's path. */
export async function registerPayload(bundleDir: string, manifest: BundleManifest): Promise<string> {
  verifyPayload(bundleDir, manifest);
  const path = payloadPath(bundleDir, manifest);
  let factory: unknown;
  try {
    factory = ((await import(pathToFileURL(path).href)) as { default?: unknown }).default;
    if (typeof factory !== 'function') throw new WorkflowError('INVALID_METADATA', `The bundle's payload ${path} has no default factory function`, { path });
    await (factory as () => unknown)();
  } catch (error) {
    if (isWorkflowError(error)) throw error;
    throw new WorkflowError('INVALID_METADATA', `The bundle's extension factory failed: ${messageOf(error)}`, { path }, { cause: error });
  }
  if (loadingRegistry().getFunction(manifest.workflow) === undefined) {
    throw new WorkflowError('MISSING_WORKFLOW', `The bundle's payload did not register the workflow "${manifest.workflow}"`, { name: manifest.workflow });
  }
  return path;
}
