/**
 * `notes.logged`: each log message a script persists is observed once, with
 * its run, bounded text, scope path and time; a resumed segment that replays
 * the log from its journal is not observed again; a throwing tap is reported
 * and the run goes on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { KernelPlugin, LogObservation, WorkflowError } from '../../kernel/index.js';
import { createHarness, gateStarted, gated, release, type Harness } from '../support/engine-harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function listener(seen: LogObservation[], fail = false): KernelPlugin {
  return {
    name: 'log-probe',
    apply(kernel) {
      kernel.hooks.notes.logged.tap('log-probe', (entry) => {
        seen.push(entry);
        if (fail) throw new Error('the probe broke');
      });
    },
  };
}

describe('notes.logged', () => {
  it('observes each new message once, bounded, with its path and time, in order', async () => {
    const seen: LogObservation[] = [];
    harness = createHarness({ plugins: [listener(seen)] });
    const outcome = await harness.run(`log('one'); await parallel('p', { a: async () => log('in a') }); log('x'.repeat(5000)); return 1;`);
    expect(outcome.state).toBe('completed');
    expect(seen.map((entry) => entry.message.slice(0, 5))).toEqual(['one', 'in a', 'xxxxx']);
    expect(seen[0]).toMatchObject({ run: { runId: outcome.runId }, path: [] });
    expect(seen[1]!.path).toEqual(['parallel:p/a']);
    expect(Buffer.byteLength(seen[2]!.message)).toBe(4096);
    const logs = harness.runEvents(outcome.runDir).filter((event) => event.type === 'log');
    expect(seen.map((entry) => entry.at)).toEqual(logs.map((event) => event.at));
  });

  it('does not observe a message a resumed segment replays from its journal', async () => {
    const seen: LogObservation[] = [];
    harness = createHarness({ plugins: [listener(seen)] });
    const cwd = harness.freshCwd('logged-replay');
    const first = harness.newEngine();
    const handle = await first.launch({ name: 'replay', cwd, script: `log('before'); await shell(${JSON.stringify(gated())}); log('after'); return 1;` });
    await gateStarted(cwd);
    await first.close();
    expect((await handle.outcome).state).toBe('interrupted');
    release(cwd);
    const resumed = await harness.newEngine().resume(cwd, handle.runId);
    expect((await resumed.outcome).state).toBe('completed');
    expect(seen.map((entry) => entry.message)).toEqual(['before', 'after']);
  });

  it('reports a throwing tap as a warning and the script goes on', async () => {
    const seen: LogObservation[] = [];
    const warnings: WorkflowError[] = [];
    harness = createHarness({ plugins: [listener(seen, true)], onWarning: (error) => void warnings.push(error) });
    const outcome = await harness.run(`log('one'); log('two'); return 'done';`);
    expect(outcome).toMatchObject({ state: 'completed', value: 'done' });
    expect(seen.map((entry) => entry.message)).toEqual(['one', 'two']);
    expect(warnings.map((warning) => warning.message)).toEqual([expect.stringContaining('the probe broke'), expect.stringContaining('the probe broke')]);
  });
});
