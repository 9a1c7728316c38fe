import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it, expect } from 'vitest';
import { createKernel } from '../../kernel/kernel.js';
import { WorkflowEngine } from '../../kernel/engine/engine.js';
import { checkpointsPlugin } from '../../plugins/checkpoints/index.js';
import { evidencePlugin } from '../../plugins/evidence/index.js';
import { echoTransportPlugin } from '../support/echo-transport.js';

it('smoke', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wf-'));
  const events: string[] = [];
  const kernel = createKernel({ plugins: [checkpointsPlugin, evidencePlugin, echoTransportPlugin(), { name: 'spy', apply: (k) => k.hooks.events.emit.tap('spy', (e) => void events.push(e.type)) }] });
  const engine = new WorkflowEngine({ kernel, sessionId: 's1', root: join(dir, 'root'), agentDir: join(dir, 'agent'), home: dir });
  const run = await engine.launch({ name: 'smoke', cwd: dir, script: `
    phase('one');
    const r = await shell('echo hi');
    log('got ' + r.stdout);
    const a = await agent('hello', { label: 'greeter' });
    const e = await evidence({ big: 'data' });
    const p = await parallel('p', { x: () => shell('echo x'), y: () => agent('y') });
    return { r, a, e: e.bytes, p };
  ` });
  const outcome = await run.outcome;
  console.log(JSON.stringify(outcome, null, 1), events);
  expect(outcome.state).toBe('completed');
  await engine.close();
});
