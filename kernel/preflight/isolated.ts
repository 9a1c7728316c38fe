/**
 * Where a script is preflighted. Its syntax tree costs about 200 bytes of
 * memory per byte of source (a 1 MB script: some 200 MB at the peak), so a
 * source over 64 KB is checked in a child process (process.ts), started and
 * awaited synchronously: the host then holds only the source and the result,
 * a small multiple of the source. Smaller sources, nearly every script, are
 * checked in-process, where they cost a few MB and no process start.
 */
import { spawnSync } from 'node:child_process';
import { WorkflowError, isWorkflowErrorCode } from '../errors.js';
import { deepFreeze } from '../json.js';
import { kernelEntryPoint } from '../entry-point.js';
import { checkScriptSize, preflight, programLocator, tooDeep, type PreflightOptions, type PreflightResult } from './index.js';
import type { Edit } from './edits.js';
import { LineIndex } from './position.js';

/** Sources above this many UTF-16 units are preflighted in a child process. */
export const ISOLATE_ABOVE = 32 * 1024;
/**
 * rollup's native parser recurses on the machine stack and ends the whole
 * process (SIGSEGV) past a few thousand levels of brackets, templates or
 * arrow functions, which fit in 15 KB of source. Other chains (`!!!…`,
 * `a+a+…`) need over 60 KB to get there. So a smaller source is parsed
 * in-process only while its brackets nest less than this and it holds fewer
 * arrows than this; real scripts stay far below both.
 */
const IN_PROCESS_NESTING = 256;
/** Heap ceiling of the child: several times what the largest script (1 MiB) needs. */
const CHILD_HEAP_MB = 1024;
/** A preflight that runs longer than this is reported, never waited on for ever. */
const CHILD_TIMEOUT_MS = 120_000;

type Reply = { readonly ok: true; readonly result: Omit<PreflightResult, 'source' | 'locate'>; readonly edits: readonly Edit[] } | { readonly ok: false; readonly error: { code: string; message: string; details?: Record<string, unknown> } };

/** The preflight of `source`, in-process or in a child process by its size; the same result and errors either way. */
export function preflightScript(source: string, options: PreflightOptions, isolateAbove: number = ISOLATE_ABOVE): PreflightResult {
  checkScriptSize(source);
  if (source.length <= isolateAbove && shallow(source)) return preflight(source, options);
  const entry = kernelEntryPoint('preflight/process', import.meta.url);
  const request = JSON.stringify({ source, options: { ...options, unavailable: [...(options.unavailable ?? new Map<string, string>())] } });
  const child = spawnSync(process.execPath, [`--max-old-space-size=${CHILD_HEAP_MB}`, ...entry.execArgv, entry.file], {
    input: request,
    env: {},
    timeout: CHILD_TIMEOUT_MS,
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let reply: Reply | undefined;
  try {
    reply = child.status === 0 ? (JSON.parse(child.stdout.toString('utf8')) as Reply) : undefined;
  } catch {
    reply = undefined;
  }
  if (reply === undefined && child.signal === 'SIGSEGV') throw tooDeep('the parser ran out of stack');
  if (reply === undefined) {
    const why = child.error?.message ?? (child.signal !== null ? `signal ${child.signal}` : `exit code ${String(child.status)}`);
    const stderr = child.stderr?.toString('utf8').trim().split('\n').slice(-3).join(' ') ?? '';
    throw new WorkflowError('INTERNAL_ERROR', `The preflight of the workflow script (${source.length} characters) did not finish: ${why}${stderr === '' ? '' : ` (${stderr})`}`, { reason: 'preflight_process' });
  }
  if (!reply.ok) {
    const { code, message, details } = reply.error;
    throw new WorkflowError(isWorkflowErrorCode(code) ? code : 'INTERNAL_ERROR', message, details);
  }
  // The source has the program's lines and length (module forms are blanked, never removed), so its index maps positions back.
  return deepFreeze({ source, ...reply.result, locate: programLocator(reply.result.program, reply.edits, new LineIndex(source)) });
}

/**
 * Whether the source's brackets nest less than IN_PROCESS_NESTING deep and
 * it has fewer arrows: counted over the raw text, strings and comments
 * included, so it can only overestimate (which costs a child process, never
 * a wrong answer).
 */
function shallow(source: string): boolean {
  let depth = 0;
  let arrows = 0;
  for (let index = 0; index < source.length; index += 1) {
    const unit = source.charCodeAt(index);
    if (unit === 0x28 /* ( */ || unit === 0x5b /* [ */ || unit === 0x7b /* { */) {
      depth += 1;
      if (depth >= IN_PROCESS_NESTING) return false;
    } else if (unit === 0x29 /* ) */ || unit === 0x5d /* ] */ || unit === 0x7d /* } */) {
      if (depth > 0) depth -= 1;
    } else if (unit === 0x3e /* > */ && source.charCodeAt(index - 1) === 0x3d /* = */ && ++arrows >= IN_PROCESS_NESTING) {
      return false;
    }
  }
  return true;
}
