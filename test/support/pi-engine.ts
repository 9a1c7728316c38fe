/**
 * A workflow engine whose agents run on the Pi transport, over a temporary
 * agent dir: kernel = checkpoints + evidence + pi-transport plugins.
 */
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createKernel } from '../../kernel/kernel.js';
import { WorkflowEngine, type RunOutcome } from '../../kernel/engine/engine.js';
import { checkpointsPlugin } from '../../plugins/checkpoints/index.js';
import { evidencePlugin } from '../../plugins/evidence/index.js';
import { createPiTransportPlugin } from '../../plugins/pi-transport/index.js';
import { createFauxAgentDir, type FauxAgentDir, type TempAgentDir } from './pi-agent-dir.js';

export interface PiEngine {
  readonly engine: WorkflowEngine;
  run(script: string): Promise<RunOutcome & { readonly runDir: string }>;
  close(): Promise<void>;
}

export function createPiEngine(dir: TempAgentDir): PiEngine {
  const kernel = createKernel({ plugins: [checkpointsPlugin, evidencePlugin, createPiTransportPlugin({ agentDir: dir.agentDir })] });
  const engine = new WorkflowEngine({ kernel, sessionId: 's1', root: join(dir.root, 'runs'), agentDir: dir.agentDir, home: dir.root });
  return {
    engine,
    async run(script) {
      const handle = await engine.launch({ name: 'pi-e2e', cwd: dir.cwd, script });
      return { ...(await handle.outcome), runDir: handle.runDir };
    },
    close: () => engine.close(),
  };
}

/** For a describe block: a faux agent dir and an engine over it, closed after the block. */
export function usePiEngine(): { readonly dir: FauxAgentDir; readonly pi: PiEngine } {
  let made: { dir: FauxAgentDir; pi: PiEngine } | undefined;
  beforeAll(() => {
    const dir = createFauxAgentDir();
    made = { dir, pi: createPiEngine(dir) };
  });
  afterAll(async () => {
    await made?.pi.close();
    made?.dir.close();
  });
  const get = () => {
    if (made === undefined) throw new Error('the engine is made in beforeAll');
    return made;
  };
  return {
    get dir() {
      return get().dir;
    },
    get pi() {
      return get().pi;
    },
  };
}
