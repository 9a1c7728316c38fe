/**
 * The Pi side of `preparation.models`: every `provider/model` of the agent
 * dir's registry is known; the ones whose provider has usable credentials
 * (Pi's availability snapshot, no network) are available.
 */
import type { ModelInventory } from '../../kernel/index.js';
import { sharedModelRuntime } from './runtimes.js';

function merged(before: readonly string[], added: readonly string[]): string[] {
  return [...new Set([...before, ...added])];
}

export async function addPiModels(inventory: ModelInventory, agentDir: string): Promise<ModelInventory> {
  const runtime = await sharedModelRuntime(agentDir);
  const reference = (model: { provider: string; id: string }) => `${model.provider}/${model.id}`;
  return {
    ...inventory,
    knownModels: merged(inventory.knownModels, runtime.getModels().map(reference)),
    availableModels: merged(inventory.availableModels, runtime.getAvailableSnapshot().map(reference)),
  };
}
