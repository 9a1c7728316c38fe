/**
 * `endSandboxes` (kernel/sandbox/sandbox-process.ts): a host that ends at
 * once (`wfcli`) first kills its sandbox processes still alive and waits
 * until each has exited, so none is left for the system to reap. Real
 * sandbox processes; every wait is for a process event.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_LIMITS, SandboxProcess, endSandboxes } from '../../kernel/sandbox/sandbox-process.js';

describe('endSandboxes', () => {
  it('kills every live sandbox, a ready one and one still starting, and resolves once each has exited', async () => {
    const ready = new SandboxProcess(DEFAULT_SANDBOX_LIMITS);
    await ready.ready;
    const starting = new SandboxProcess(DEFAULT_SANDBOX_LIMITS);
    starting.ready.catch(() => undefined);
    expect([ready.exited, starting.exited]).toEqual([false, false]);
    await endSandboxes();
    expect([ready.exited, starting.exited]).toEqual([true, true]);
    expect([ready.child.signalCode, starting.child.signalCode]).toEqual(['SIGKILL', 'SIGKILL']);
  });

  it('resolves at once when no sandbox is alive', async () => {
    await expect(endSandboxes()).resolves.toBeUndefined();
  });
});
