/**
 * Stopping a run that another live process executes (`wfcli stop` of a run
 * that a `wfcli run` or a Pi session of the same session ID executes): the
 * run lock says who executes it, and only that process can stop it cleanly
 * (cancel its agents, end its shell commands, persist `stopped`). So the
 * stopping engine writes a request file into the run directory and waits,
 * and every engine polls the request file of each run it executes and stops
 * that run itself. Signals are no way to do it: the owner may be an
 * interactive Pi, which a signal would end whole.
 *
 * The run directory is untrusted: only a regular file counts as a request,
 * nothing is read from it, and a stale one is removed when a segment starts.
 */
import { lstatSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { TERMINAL_RUN_STATES, type RunState } from '../states.js';
import { readRunLock, writeFileAtomic } from '../store/index.js';
import type { StopResult } from './engine-types.js';

export const STOP_REQUEST_FILE = 'stop.request';
/** How often an executing engine looks for requests, and a requester for the outcome. */
const POLL_MS = 200;
/** How long a requester waits for the owner before giving up (`unknown_run`). */
const WAIT_MS = 15_000;

function requestPath(runDir: string): string {
  return join(runDir, STOP_REQUEST_FILE);
}

function requested(runDir: string): boolean {
  try {
    return lstatSync(requestPath(runDir)).isFile();
  } catch {
    return false;
  }
}

function clearRequest(runDir: string): void {
  try {
    rmSync(requestPath(runDir), { force: true });
  } catch {
    // Not a file (a directory planted there): it never counts as a request either.
  }
}

/** The executing side: one timer for every run this engine executes, running only while there is one. */
export class StopRequestWatcher {
  readonly #runs = new Map<string, { readonly runDir: string; readonly stop: () => void }>();
  #timer: NodeJS.Timeout | undefined;

  /** Watches a run whose segment starts now; returns the function that ends the watch. */
  watch(runId: string, runDir: string, stop: () => void): () => void {
    clearRequest(runDir);
    const entry = { runDir, stop };
    this.#runs.set(runId, entry);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#poll(), POLL_MS);
      this.#timer.unref();
    }
    return () => {
      if (this.#runs.get(runId) === entry) this.#runs.delete(runId);
      if (this.#runs.size === 0 && this.#timer !== undefined) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
    };
  }

  #poll(): void {
    for (const [runId, { runDir, stop }] of [...this.#runs]) {
      if (!requested(runDir)) continue;
      clearRequest(runDir);
      this.#runs.delete(runId);
      stop();
    }
  }
}

export interface StopElsewhereInput {
  readonly runDir: string;
  /** The run's stored state now. */
  readonly state: () => RunState;
  /** Stops the stored run here (once its owner let go of it without ending it). */
  readonly stopHere: () => StopResult;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A run not executing in this engine: stopped here under its lock, or by the live process that holds the lock. */
export function stopNotHere(input: StopElsewhereInput): Promise<StopResult> | StopResult {
  const result = input.stopHere();
  if (result.stopped || readRunLock(input.runDir) === undefined) return result;
  return stopElsewhere(input);
}

/**
 * The requesting side: asks the live owner to stop the run and waits until
 * the run is terminal (`stopped`: done; another terminal state: it ended by
 * itself first) or the owner let go of it (then it is stopped here). An
 * owner that does not answer in time (an older engine) leaves the run as it
 * is: the request is withdrawn and the result is `unknown_run`.
 */
export async function stopElsewhere(input: StopElsewhereInput): Promise<StopResult> {
  const { runDir } = input;
  try {
    writeFileAtomic(requestPath(runDir), `${JSON.stringify({ pid: process.pid, at: new Date().toISOString() })}\n`);
  } catch {
    return { stopped: false, reason: 'unknown_run' };
  }
  const deadline = Date.now() + WAIT_MS;
  try {
    for (;;) {
      const state = input.state();
      if (TERMINAL_RUN_STATES.has(state)) return state === 'stopped' ? { stopped: true } : { stopped: false, reason: 'already_terminal' };
      if (readRunLock(runDir) === undefined) return input.stopHere();
      if (Date.now() > deadline) return { stopped: false, reason: 'unknown_run' };
      await sleep(POLL_MS / 2);
    }
  } finally {
    clearRequest(runDir);
  }
}
