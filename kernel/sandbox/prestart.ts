/**
 * A sandbox process started before any engine exists (`wfcli run` starts one
 * before Pi's SDK loads, so the process start and the lockdown overlap that
 * load; docs/wfcli.md "What starts when"). The first pool whose launch
 * matches takes it as its spare. It lives on globalThis: the host entry Pi
 * loads may hold its own copy of this module. Unreferenced like any spare,
 * and killed at exit when no pool takes it.
 */
import { sandboxLaunch } from './launch.js';
import { DEFAULT_SANDBOX_LIMITS, SandboxProcess, type SandboxLimits } from './sandbox-process.js';

const PRESTARTED_SLOT = Symbol.for('pi-extensible-workflows.prestarted-sandbox');
const PRESTARTED_FORMAT = 1;

interface Prestarted {
  readonly format: number;
  /** The command, arguments and limits it was started with. */
  readonly key: string;
  readonly sandbox: SandboxProcess;
}

function launchKey(limits: SandboxLimits): string {
  const launch = sandboxLaunch(limits.maxOldGenerationSizeMb);
  return JSON.stringify([launch.command, launch.args, limits]);
}

/**
 * Starts a sandbox process with the default limits now, for the next pool to take (at most one waits);
 * `codeCacheRoot`: the store whose sandbox code cache it uses (code-cache.ts).
 */
export function prestartSandbox(codeCacheRoot?: string): void {
  if (Reflect.get(globalThis, PRESTARTED_SLOT) !== undefined) return;
  const prestarted: Prestarted = { format: PRESTARTED_FORMAT, key: launchKey(DEFAULT_SANDBOX_LIMITS), sandbox: new SandboxProcess(DEFAULT_SANDBOX_LIMITS, codeCacheRoot) };
  Object.defineProperty(globalThis, PRESTARTED_SLOT, { value: prestarted, configurable: true, enumerable: false });
}

/** The prestarted process when it was started for these limits and is alive; any other is ended. */
export function takePrestarted(limits: SandboxLimits): SandboxProcess | undefined {
  const found: unknown = Reflect.get(globalThis, PRESTARTED_SLOT);
  if (found === undefined) return undefined;
  Reflect.deleteProperty(globalThis, PRESTARTED_SLOT);
  const prestarted = found as Partial<Prestarted>;
  if (prestarted.format === PRESTARTED_FORMAT && prestarted.key === launchKey(limits) && prestarted.sandbox?.exited === false) return prestarted.sandbox;
  if (prestarted.format === PRESTARTED_FORMAT) prestarted.sandbox?.kill();
  return undefined;
}
