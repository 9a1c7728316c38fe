/**
 * The Pi side of `preparation.models`: every `provider/model` of the agent
 * dir's registry is known; the ones whose provider has usable credentials
 * (Pi's availability snapshot, no network) are available.
 */
import path from 'node:path';
import { ModelRuntime } from '@earendil-works/pi-coding-agent';
import type { ModelInventory } from '../../kernel/index.js';

export async function createModelRuntime(agentDir: string, signal?: AbortSignal): Promise<ModelRuntime> {
  return ModelRuntime.create({
    authPath: path.join(agentDir, 'auth.json'),
    modelsPath: path.join(agentDir, 'models.json'),
    ...(signal === undefined ? {} : { signal }),
  });
}

function merged(before: readonly string[], added: readonly string[]): string[] {
  return [...new Set([...before, ...added])];
}

export async function addPiModels(inventory: ModelInventory, agentDir: string): Promise<ModelInventory> {
  const runtime = await createModelRuntime(agentDir);
  const reference = (model: { provider: string; id: string }) => `${model.provider}/${model.id}`;
  return {
    ...inventory,
    knownModels: merged(inventory.knownModels, runtime.getModels().map(reference)),
    availableModels: merged(inventory.availableModels, runtime.getAvailableSnapshot().map(reference)),
  };
}
