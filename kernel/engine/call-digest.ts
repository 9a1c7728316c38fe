/**
 * The identity of a journaled call: what operation it is and with which
 * arguments. A journal key says *where* a call is (scope, site,
 * occurrence); the digest says *what* it is, so a replay that would hand a
 * recorded value to a different call is caught (Temporal's non-determinism
 * check). The digest is the SHA-256 of the canonical JSON (sorted keys) of
 * `[op, ...args]`; `preview` is the short human form kept beside it.
 */
import { hash } from 'node:crypto';
import { WorkflowError } from '../errors.js';
import { encodeJson } from '../json-encode.js';
import type { JsonValue } from '../json.js';

const PREVIEW_CHARS = 120;
/** Canonical text is only hashed, never stored: no byte limit of its own. */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

export interface CallIdentity {
  readonly op: string;
  readonly args: readonly JsonValue[];
}

export function callDigest(call: CallIdentity): string {
  const value = [call.op, ...call.args];
  const options = { maxBytes: NO_LIMIT, sortKeys: true };
  let encoded = encodeJson(value, options);
  // Host code may hand values JSON only approximates (undefined members): hash what JSON keeps of them.
  if (!encoded.ok) {
    try {
      encoded = encodeJson(JSON.parse(JSON.stringify(value)) as unknown, options);
    } catch {
      // not JSON at all: the preview is the best identity left
    }
  }
  return hash('sha256', encoded.ok ? encoded.text : callPreview(call), 'hex');
}

export function callPreview(call: CallIdentity): string {
  let text: string;
  try {
    text = `${call.op}(${JSON.stringify(call.args).slice(1, -1)})`;
  } catch {
    text = `${call.op}(…)`;
  }
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
}

/** The journaled call and the new one differ: the replay would hand a value to the wrong call. */
export function nondeterministicReplay(input: { site: string; key: string; journaled: string; now: CallIdentity }): WorkflowError {
  const now = callPreview(input.now);
  return new WorkflowError(
    'RESUME_INCOMPATIBLE',
    `The script no longer replays its journal: at ${input.site} (journal key ${input.key}) the journal recorded ${input.journaled}, but the script now calls ${now}. Relaunch instead.`,
    { reason: 'nondeterministic_replay', site: input.site, key: input.key, journaled: input.journaled, now },
  );
}
