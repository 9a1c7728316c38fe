/**
 * The usual e2e setup for one describe block: a scripted model and a temp
 * Pi home with this package installed, both closed after the block.
 */
import { afterAll, beforeAll } from 'vitest';
import { addLocalPackage, createPiHome, REPO_ROOT, type PiHome } from './pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './scripted-model.js';

export interface ScriptedPi {
  readonly model: ScriptedModel;
  readonly pi: PiHome;
}

export function useScriptedPi(): ScriptedPi {
  let current: ScriptedPi | undefined;
  beforeAll(async () => {
    const model = await startScriptedModel();
    const pi = createPiHome(model);
    current = { model, pi };
    addLocalPackage(pi, REPO_ROOT);
  });
  afterAll(async () => {
    current?.pi.close();
    await current?.model.close();
  });
  const get = (): ScriptedPi => {
    if (current === undefined) throw new Error('the scripted pi starts in beforeAll');
    return current;
  };
  return {
    get model() {
      return get().model;
    },
    get pi() {
      return get().pi;
    },
  };
}
