/**
 * The preflight as a process of its own (see isolated.ts): reads
 * `{ source, options }` as JSON on stdin, writes `{ ok, result | error }` as
 * JSON on stdout. Its syntax tree, scopes and maps live and die here, never
 * in the host.
 *
 * From source (tests) Node runs this file with type stripping; the resolve
 * hook in scripts/ts-resolve.mjs maps its relative `.js` imports to `.ts`.
 */
import { readFileSync } from 'node:fs';
import { isWorkflowError, messageOf } from '../errors.js';
import { preflightWithEdits, type PreflightOptions } from './index.js';

interface Request {
  readonly source: string;
  readonly options: Omit<PreflightOptions, 'unavailable'> & { readonly unavailable: readonly (readonly [string, string])[] };
}

let reply: unknown;
try {
  const request = JSON.parse(readFileSync(0, 'utf8')) as Request;
  // The locator is a function: the edits it is built from travel instead, and the host rebuilds it.
  const { result, edits } = preflightWithEdits(request.source, { ...request.options, unavailable: new Map(request.options.unavailable) });
  const { source: _source, locate: _locate, ...rest } = result;
  reply = { ok: true, result: rest, edits };
} catch (error) {
  reply = { ok: false, error: isWorkflowError(error) ? error.toJSON() : { code: 'INTERNAL_ERROR', message: messageOf(error) } };
}
process.stdout.write(JSON.stringify(reply));
