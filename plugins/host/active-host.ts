/**
 * Which extension runtime holds the process-wide workflow session, and what
 * its `session_start` produced: the host session, or the error that kept it
 * from starting. The registries are process-wide, so one host runs per
 * process. The slot lives on globalThis because Pi's loader evaluates each
 * extension's modules afresh: a headless caller (wfcli) reads here the host
 * that the Pi session it created started.
 */
import { WorkflowError } from '../../kernel/index.js';
import type { HostSession } from './host-session.js';

const SLOT = Symbol.for('pi-extensible-workflows.active-host');
/** Bump when the slot's shape changes incompatibly. */
const FORMAT = 1;

export interface ActiveHost {
  readonly format: number;
  /** The extension runtime holding the session (an opaque token). */
  readonly owner: object;
  /** Set once `session_start` finished. */
  session?: HostSession;
  /** Set when `session_start` failed (a missing required plugin ...). */
  error?: unknown;
}

export function activeHost(): ActiveHost | undefined {
  const current: unknown = Reflect.get(globalThis, SLOT);
  if (current === undefined) return undefined;
  if (typeof current !== 'object' || current === null || Reflect.get(current, 'format') !== FORMAT) {
    throw new WorkflowError('INTERNAL_ERROR', 'Another loaded copy of pi-extensible-workflows holds the workflow host in an incompatible format; load one version of the package');
  }
  return current as ActiveHost;
}

/** Claims the process for `owner`; false when another runtime holds it. */
export function claimActiveHost(owner: object): boolean {
  const current = activeHost();
  if (current !== undefined) return current.owner === owner;
  const claimed: ActiveHost = { format: FORMAT, owner };
  Reflect.set(globalThis, SLOT, claimed);
  return true;
}

export function releaseActiveHost(owner: object): void {
  if (activeHost()?.owner === owner) Reflect.deleteProperty(globalThis, SLOT);
}
