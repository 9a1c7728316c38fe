/**
 * Whether sandbox pools keep a spare process. A process that runs at most one workflow segment and exits (each
 * `wfcli` command) turns spares off: a spare would start, lock down and be killed unused, on CPU the run needs;
 * a launch without one starts its sandbox then, and a prestarted process (prestart.ts) is still taken. Kept on
 * globalThis, like the prestarted process, because the host entry Pi loads may hold its own copy of the pool.
 * Imports nothing: the read-only `wfcli` commands load this module.
 */
const NO_SPARES_SLOT = Symbol.for('pi-extensible-workflows.no-sandbox-spares');

export function disableSandboxSpares(): void {
  Object.defineProperty(globalThis, NO_SPARES_SLOT, { value: true, configurable: true, enumerable: false });
}

export function sandboxSparesEnabled(): boolean {
  return Reflect.get(globalThis, NO_SPARES_SLOT) !== true;
}
