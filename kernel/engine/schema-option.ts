/**
 * `schema`: the name Claude Code's dynamic workflows and the public
 * runtime's older README give the JSON Schema an agent's answer must match.
 * Ignoring it handed scripts text where they read fields (issue 36), so
 * unless a loaded extension reads `schema` itself, a JSON Schema object
 * there, with no `outputSchema` beside it, is read as `outputSchema` (and a
 * note says so); anything else named `schema` is refused with the form to
 * write, at launch when the option is written literally.
 */
import { WorkflowError } from '../errors.js';
import type { JsonValue } from '../json.js';

export const SCHEMA_OPTION = 'schema';

const FORM = 'outputSchema: { type: "object", properties: { ... }, required: [...] }';

/** What the launch and the run-time notes say of an adopted `schema`. */
export function schemaNote(where: string): string {
  return `Agent option "schema"${where} is read as outputSchema: the agent returns a value of that JSON Schema's shape (outputSchema is this runtime's name for it)`;
}

/** Why `options.schema` cannot be read as outputSchema, or undefined when it can (or is absent). */
function schemaProblem(options: Readonly<Record<string, unknown>>): string | undefined {
  if (!Object.hasOwn(options, SCHEMA_OPTION)) return undefined;
  if (options['outputSchema'] !== undefined) return `agent options give both schema and outputSchema; keep the one the answer must match as ${FORM} and remove schema`;
  const schema = options[SCHEMA_OPTION];
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return `agent option schema must be a JSON Schema object (it is read as outputSchema); write ${FORM}`;
  }
  return undefined;
}

/** The options with `schema` read as `outputSchema`; throws INVALID_METADATA (naming `where`) when it cannot be. */
export function adoptSchema<T extends Readonly<Record<string, unknown>>>(options: T, where: string): T {
  if (!Object.hasOwn(options, SCHEMA_OPTION)) return options;
  const problem = schemaProblem(options);
  if (problem !== undefined) throw new WorkflowError('INVALID_METADATA', `${where}: ${problem}`, { option: SCHEMA_OPTION });
  const { [SCHEMA_OPTION]: schema, ...rest } = options;
  return { ...rest, outputSchema: schema as JsonValue } as unknown as T;
}
