/**
 * The static preflight of a workflow script: parse once, reject what must
 * never run, collect facts for launch inspection, and rewrite the source into
 * the program the sandbox evaluates, with every primitive call's site.
 */
import { WorkflowError } from '../errors.js';
import { deepFreeze } from '../json.js';
import { parentMap } from './ast.js';
import { compileFailure } from './compile-check.js';
import type { Edit } from './edits.js';
import { applyEdits, originalOffset } from './edits.js';
import { launchFacts } from './inspect.js';
import type { StaticAgentOptions } from './inspect.js';
import { globalsOf } from './names.js';
import { neutralize, sesRejection } from './normalize.js';
import { tooDeep } from './nesting.js';
import { PROGRAM_PREFIX, PROGRAM_SUFFIX, parseScript } from './parse.js';
import { LineIndex, type Position } from './position.js';
import { Problems, syntaxError } from './problems.js';
import { checkRacing } from './racing.js';
import { checkNames, checkSyntax } from './rules.js';
import { analyzeScopes } from './scope.js';
import { collectSites, siteEdits } from './sites.js';
import { checkDeterminism } from './determinism.js';
import { checkFloating } from './floating.js';
import { checkShapes } from './shapes.js';
import { defaultExportEdits } from './default-export.js';
import type { WorkflowMeta } from './module-syntax.js';
import { agentOptionKeys } from './option-keys.js';
import { SCRIPT_LANGUAGE } from '../script-language.js';

export { SITE_MARKER } from './names.js';
export { MAX_NESTING, tooDeep } from './nesting.js';
export type { WorkflowMeta } from './module-syntax.js';
export type { InspectedOptions, StaticAgentOptions } from './inspect.js';
export { functionAgentOptions, functionSource, launchInspectionOptions } from './inspect.js';

export interface PreflightOptions {
  /** Names the script may use as globals besides JS builtins: primitives (agent, shell, prompt, parallel, pipeline, phase, log, evidence, checkpoint, withWorktree, tools, args, ...) — passed in by the caller because plugins contribute some. */
  readonly primitives: readonly string[];
  /** Registered function names (also globals, called like `await reviewLoop({...})`). */
  readonly functions: readonly string[];
  /** Globals that plugins which are not loaded would provide, with the plugin to enable (named in the error). */
  readonly unavailable?: ReadonlyMap<string, string>;
  /** The plugins' primitives whose calls are effects (`effect` and `scope` kinds: evidence, checkpoint, withWorktree ...): called directly only, and under the race rule like agent and shell. */
  readonly effects?: readonly string[];
  /**
   * The run's script language (kernel/engine/snapshot.ts SCRIPT_LANGUAGE;
   * default the current one). A stored script of language 1 is compiled
   * without the rules added since (clocks, floating calls, call shapes), so
   * runs launched before them still resume and retry.
   */
  readonly language?: number;
}

export interface CallSite {
  /** `"line:column"` (1-based) of the callee's start in the source; of the `send` name for `.send(...)`. */
  readonly id: string;
  readonly line: number;
  readonly column: number;
  /** `agent`, `agent.create`, `tools.read`, `send`, `shell`, a registered function name, ... */
  readonly callee: string;
}

export interface PreflightResult {
  /** The original text, unchanged. */
  readonly source: string;
  /** What the sandbox evaluates: an expression for the promise of the workflow result; same line numbering as `source`. */
  readonly program: string;
  readonly sites: Readonly<Record<string, CallSite>>;
  /** Sorted unique names X of `tools.X(...)`. */
  readonly toolNames: readonly string[];
  /** Sorted unique registered function names called. */
  readonly functionCalls: readonly string[];
  readonly staticAgentOptions: readonly StaticAgentOptions[];
  /** `export const meta = { ... }`: the fields a run uses. */
  readonly meta?: WorkflowMeta;
  /** Option names written in object literals of agent, create and send calls → their call sites (option-keys.ts). */
  readonly agentOptionKeys: Readonly<Record<string, readonly string[]>>;  /** The script's line and column of a 1-based position in `program` (a script error's frame). */
  locate(line: number, column: number): Position | undefined;
}

/**
 * The largest script accepted, in UTF-8 bytes: 1 MiB. Workflow scripts are
 * orchestration code (the ones models write run from 1 to 30 KB); data
 * belongs in `args` (up to the 10 MB boundary), files or evidence. Checking a
 * script costs about 200 bytes of memory and 3 µs per byte of source, so the
 * limit also bounds what one preflight can take.
 */
export const MAX_SCRIPT_BYTES = 1024 * 1024;

/** Refuses a source over MAX_SCRIPT_BYTES before anything parses it. @throws WorkflowError `INVALID_SYNTAX` */
export function checkScriptSize(source: string): void {
  // Every UTF-16 unit is at least one UTF-8 byte: only a source near the limit needs counting.
  if (source.length * 3 <= MAX_SCRIPT_BYTES) return;
  const bytes = Buffer.byteLength(source);
  if (bytes > MAX_SCRIPT_BYTES) throw scriptTooLarge(bytes);
}

export function scriptTooLarge(bytes: number): WorkflowError {
  return new WorkflowError(
    'INVALID_SYNTAX',
    `The workflow script is ${bytes} bytes; the limit is ${MAX_SCRIPT_BYTES} (1 MiB). Move data out of the source: pass it as args, read it from files, or store it with evidence()`,
    { bytes, limit: MAX_SCRIPT_BYTES },
  );
}

/** @throws WorkflowError `INVALID_SYNTAX` with `{ line, column, problems, count }` details: every problem found (problems.ts). */
export function preflight(source: string, options: PreflightOptions): PreflightResult {
  return preflightWithEdits(source, options).result;
}

/** The preflight and the edits that made its program: a child process sends them so the host can map positions back (isolated.ts). */
export function preflightWithEdits(source: string, options: PreflightOptions): { result: PreflightResult; edits: readonly Edit[] } {
  checkScriptSize(source);
  try {
    return check(source, options);
  } catch (error) {
    // rollup's converter recurses before the depth is counted (nesting.ts): thousands of levels overflow its stack.
    if (error instanceof RangeError) throw tooDeep(error.message);
    throw error;
  }
}

/**
 * A syntax error stops at the parse; the checks after it are independent and
 * each records every problem it finds, so one refusal lists them all.
 */
function check(source: string, options: PreflightOptions): { result: PreflightResult; edits: readonly Edit[] } {
  const parsed = parseScript(source);
  const { body, lines, text } = parsed;
  const problems = new Problems();
  checkSyntax(body, lines, problems);
  // Forbidden syntax (import(), import.meta) also fails the program's checks, at the same place: said once.
  const buildable = problems.size === 0;
  const globals = globalsOf(options.primitives, options.functions, options.unavailable, options.effects);
  const analysis = analyzeScopes(body);
  const parents = parentMap(body);
  checkNames(analysis, globals, parents, lines, problems);
  const current = (options.language ?? SCRIPT_LANGUAGE) >= SCRIPT_LANGUAGE;
  if (current) checkDeterminism(body, analysis, lines, problems);
  const sites = collectSites(body, analysis, globals, lines);
  if (current) checkShapes(sites, text, lines, problems);
  const racing = checkRacing(body, sites, parents, analysis, lines, globals.effects, text, problems);
  if (current) checkFloating(sites, parents, analysis, globals.effects, problems, racing);
  const { defaultExport, meta } = parsed.forms;
  const mainEdits = defaultExport === undefined ? [] : (problems.capture(() => defaultExportEdits(body, defaultExport, analysis, parents, lines, text.length)) ?? []);
  const neutral = buildable ? problems.capture(() => neutralize(parsed)) : undefined;
  const edits = [...(neutral ?? []), ...siteEdits(text, sites), ...mainEdits];
  const program = PROGRAM_PREFIX + applyEdits(text, edits) + PROGRAM_SUFFIX;
  // Text the sandbox refuses is only checked once neutralize rewrote it.
  if (neutral !== undefined) problems.capture(() => checkProgram(program, edits, lines), true);
  problems.refuse();
  const callSites: Record<string, CallSite> = {};
  for (const { id, line, column, callee } of sites) callSites[id] = { id, line, column, callee };
  const facts = launchFacts(sites, parents, analysis);
  const result: PreflightResult = deepFreeze({
    source,
    program,
    sites: callSites,
    toolNames: facts.toolNames,
    functionCalls: facts.functionCalls,
    staticAgentOptions: facts.staticAgentOptions,
    ...(meta === undefined ? {} : { meta }),
    agentOptionKeys: agentOptionKeys(sites),
    locate: programLocator(program, edits, lines),
  });
  return { result, edits };
}

/** Program positions back to the source (the program's lines are built once, on the first error). */
export function programLocator(program: string, edits: readonly Edit[], lines: LineIndex): (line: number, column: number) => Position | undefined {
  let programLines: LineIndex | undefined;
  return (line, column) => {
    programLines ??= new LineIndex(program);
    const offset = programLines.offset({ line, column }) - PROGRAM_PREFIX.length;
    if (offset < 0) return undefined;
    return lines.position(originalOffset(edits, offset));
  };
}

/** The program must pass ses's text checks and compile as strict code; errors point into the source. */
function checkProgram(program: string, edits: readonly Edit[], lines: LineIndex): void {
  const at = (programOffset: number): ReturnType<LineIndex['position']> =>
    lines.position(originalOffset(edits, programOffset - PROGRAM_PREFIX.length));
  const rejected = sesRejection(program);
  if (rejected !== undefined) {
    throw syntaxError(at(rejected), 'this text (import(, eval(, <!-- or -->) cannot be made safe for the sandbox here; rewrite it');
  }
  const failure = compileFailure(program);
  if (failure !== undefined) {
    const programLines = new LineIndex(program);
    throw syntaxError(at(programLines.offset({ line: failure.line, column: failure.column + 1 })), failure.message);
  }
}
