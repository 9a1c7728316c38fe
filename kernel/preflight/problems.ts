/**
 * The preflight's problems and the one refusal that reports them. The checks
 * after the parse are independent, so each records what it finds here and
 * the script is refused once with all of them: a script with an old
 * `parallel` shape and a clock is fixed in one edit round, not two launches.
 */
import { WorkflowError, isWorkflowError, type WorkflowErrorCode } from '../errors.js';
import type { Position } from './position.js';

/** One problem: where, and what is wrong with the fix (the text after "Line L, column C: "). */
export interface Problem {
  readonly code: WorkflowErrorCode;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** Entries the message lists (identical messages at several places are one entry); past it "and N more". */
export const MAX_LISTED_PROBLEMS = 20;
/** Problems `details.problems` holds; `details.count` is always the total. */
export const MAX_DETAILED_PROBLEMS = 50;
/** Further places an entry names for one message. */
const MAX_PLACES = 8;

/** A refusal for one problem at `position` (a check that cannot go on past it throws this). */
export function syntaxError(position: Position, what: string): WorkflowError {
  return refusal([{ code: 'INVALID_SYNTAX', line: position.line, column: position.column, message: what }]);
}

/**
 * The refusal for `problems` (at least one), in source order: the first
 * one's code and position, every problem in `details.problems`, and a
 * message listing them, `Line L, column C: <what and the fix>` each.
 */
export function refusal(found: readonly Problem[]): WorkflowError {
  // The same problem found twice (two checks agreeing) counts once.
  const unique = new Map(found.map((problem) => [`${problem.line}:${problem.column}:${problem.code}:${problem.message}`, problem]));
  const problems = [...unique.values()].sort((a, b) => a.line - b.line || a.column - b.column);
  const first = problems[0];
  if (first === undefined) throw new Error('a refusal needs a problem');
  const details = {
    line: first.line,
    column: first.column,
    problems: problems.slice(0, MAX_DETAILED_PROBLEMS).map(({ code, line, column, message }) => ({ code, line, column, message })),
    count: problems.length,
  };
  if (problems.length === 1) return new WorkflowError(first.code, `${at(first)}: ${first.message}`, details);
  const entries = grouped(problems);
  const listed = entries.slice(0, MAX_LISTED_PROBLEMS).map(entry);
  const rest = entries.slice(MAX_LISTED_PROBLEMS).reduce((sum, group) => sum + group.length, 0);
  const more = rest === 0 ? [] : [`… and ${rest} more problem${rest === 1 ? '' : 's'}: fix these, and the next launch lists the rest`];
  const header = `The workflow script has ${problems.length} problems; fix all of them before launching it again:`;
  return new WorkflowError(first.code, [header, ...listed, ...more].join('\n'), details);
}

function at(problem: Problem): string {
  return `Line ${problem.line}, column ${problem.column}`;
}

/** Problems with the same message (a name used many times) grouped, in order of their first place. */
function grouped(problems: readonly Problem[]): Problem[][] {
  const groups = new Map<string, Problem[]>();
  for (const problem of problems) {
    const key = `${problem.code}\n${problem.message}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [problem]);
    else group.push(problem);
  }
  return [...groups.values()];
}

function entry(group: readonly Problem[]): string {
  const [first, ...others] = group as [Problem, ...Problem[]];
  if (others.length === 0) return `${at(first)}: ${first.message}`;
  const places = others.slice(0, MAX_PLACES).map((other) => `${other.line}:${other.column}`);
  const beyond = others.length > MAX_PLACES ? ` and ${others.length - MAX_PLACES} more` : '';
  // The places go last: every entry keeps the form `Line L, column C: <what>`.
  return `${at(first)}: ${first.message} (the same at ${places.join(', ')}${beyond})`;
}

/** What the checks of one preflight found; `refuse()` throws them as one refusal. */
export class Problems {
  readonly #found: Problem[] = [];

  get size(): number {
    return this.#found.length;
  }

  add(position: Position, what: string): void {
    this.#found.push({ code: 'INVALID_SYNTAX', line: position.line, column: position.column, message: what });
  }

  /**
   * Runs a step that stops at its first problem (it throws a refusal): its
   * problems are recorded and the result is undefined. Anything else it
   * throws (too deep a nesting, an internal error) is thrown on. `newPlaces`:
   * record only problems where none was found yet (the engine's compile
   * error for `var eval` is the names check's, in other words).
   */
  capture<T>(step: () => T, newPlaces = false): T | undefined {
    try {
      return step();
    } catch (error) {
      const problems = isWorkflowError(error) ? problemsOf(error) : undefined;
      if (problems === undefined) throw error;
      const known = (problem: Problem) => this.#found.some((other) => other.line === problem.line && other.column === problem.column);
      this.#found.push(...problems.filter((problem) => !newPlaces || !known(problem)));
      return undefined;
    }
  }

  /** Throws the refusal when anything was found. */
  refuse(): void {
    if (this.#found.length > 0) throw refusal(this.#found);
  }
}

/** The problems a refusal of this module carries, or undefined for any other error. */
function problemsOf(error: WorkflowError): Problem[] | undefined {
  const problems = error.details?.['problems'];
  return Array.isArray(problems) ? (problems as Problem[]) : undefined;
}
