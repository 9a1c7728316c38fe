/**
 * Model runtimes for sessions. Building one reads models.json and auth.json
 * and checks every provider's credentials: milliseconds, most of a session's
 * start-up. A session only reads its runtime unless an extension registers a
 * provider (while loading, or later through the session), so the sessions
 * that load no extension besides the transport's own share one runtime per
 * agent dir, and the others get one of their own.
 *
 * The shared runtime is rebuilt when models.json, auth.json or
 * models-store.json change on disk (stat revision), so an edit applies to
 * the next session as it would with a fresh runtime. Credentials are read
 * again at request time in any case.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ModelRuntime, type AgentSessionRuntimeDiagnostic, type LoadExtensionsResult } from '@earendil-works/pi-coding-agent';
import { messageOf } from '../../kernel/index.js';

const WATCHED_FILES = ['models.json', 'auth.json', 'models-store.json'] as const;
/** Agent dirs whose runtime is kept; tests make many, a host uses one. */
const SHARED_LIMIT = 8;

interface SharedRuntime {
  readonly revision: string;
  readonly runtime: Promise<ModelRuntime>;
}

const shared = new Map<string, SharedRuntime>();

function createModelRuntime(agentDir: string, options: { readonly refreshOnCreate?: boolean; readonly signal?: AbortSignal | undefined } = {}): Promise<ModelRuntime> {
  return ModelRuntime.create({
    authPath: path.join(agentDir, 'auth.json'),
    modelsPath: path.join(agentDir, 'models.json'),
    ...(options.refreshOnCreate === false ? { refreshOnCreate: false } : {}),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

/** Identity of the files a runtime is built from (missing files included). */
function revision(agentDir: string): string {
  return WATCHED_FILES.map((name) => {
    try {
      const stats = fs.statSync(path.join(agentDir, name), { bigint: true });
      return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
    } catch {
      return '-';
    }
  }).join('|');
}

/** The agent dir's shared runtime, rebuilt when its files changed. */
export function sharedModelRuntime(dir: string): Promise<ModelRuntime> {
  const agentDir = path.resolve(dir);
  const current = revision(agentDir);
  const cached = shared.get(agentDir);
  if (cached?.revision === current) return cached.runtime;
  const runtime = createModelRuntime(agentDir);
  shared.delete(agentDir);
  if (shared.size >= SHARED_LIMIT) shared.delete(shared.keys().next().value as string);
  shared.set(agentDir, { revision: current, runtime });
  runtime.catch(() => {
    if (shared.get(agentDir)?.runtime === runtime) shared.delete(agentDir);
  });
  return runtime;
}

/**
 * A runtime of one session's own, with the providers its extensions queued
 * while loading registered the way `createAgentSessionServices` does, and one
 * availability refresh after them.
 */
export async function privateModelRuntime(
  agentDir: string,
  extensions: LoadExtensionsResult,
  diagnostics: AgentSessionRuntimeDiagnostic[],
  signal?: AbortSignal,
): Promise<ModelRuntime> {
  const runtime = await createModelRuntime(agentDir, { refreshOnCreate: false, signal });
  const pending = extensions.runtime;
  const report = (extensionPath: string, error: unknown) => diagnostics.push({ type: 'error', message: `Extension "${extensionPath}" error: ${messageOf(error)}` });
  for (const { name, config, extensionPath } of pending.pendingProviderRegistrations) {
    try {
      runtime.registerProvider(name, config);
    } catch (error) {
      report(extensionPath, error);
    }
  }
  pending.pendingProviderRegistrations = [];
  for (const { provider, extensionPath } of pending.pendingNativeProviderRegistrations) {
    try {
      runtime.registerNativeProvider(provider);
    } catch (error) {
      report(extensionPath, error);
    }
  }
  pending.pendingNativeProviderRegistrations = [];
  await runtime.refresh({ allowNetwork: false, ...(signal === undefined ? {} : { signal }) });
  return runtime;
}
