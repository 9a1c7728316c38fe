/**
 * Flat workflow arguments: the tokens after `--` of `wfcli run` become the
 * workflow's input object (docs/wfcli.md "Workflow arguments").
 *
 * - `--key value` and `--key=value` set `key`; `--key` alone (last, or
 *   followed by another `--option`) is `true`.
 * - Names: the schema's own property name when it has this one, else its
 *   camelCase form when the schema has that (`--input-key` → `inputKey`), else
 *   as typed.
 * - Values: a property whose schema type is only `"string"` keeps the text;
 *   any other value is the JSON it parses as (`3`, `true`, `{"a":1}`), else
 *   the text.
 * - A key given twice, or a property of type `"array"`, collects the values
 *   into an array (each typed by `items` the same way).
 * - Every name is an ordinary key, `__proto__` and `constructor` included.
 */
import type { JsonValue } from '../kernel/index.js';
import { UsageError } from './command.js';

type Schema = Readonly<Record<string, unknown>>;

function propertiesOf(schema: Schema | undefined): Schema {
  const properties = schema?.properties;
  return typeof properties === 'object' && properties !== null && !Array.isArray(properties) ? (properties as Schema) : {};
}

function schemaOf(value: unknown): Schema | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Schema) : undefined;
}

function camelCase(name: string): string {
  return name.replace(/-+([a-zA-Z0-9])/g, (_match, next: string) => next.toUpperCase());
}

function typed(text: string | true, schema: Schema | undefined): JsonValue {
  if (text === true) return true;
  if (schema?.type === 'string') return text;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

export function parseWorkflowInput(tokens: readonly string[], schema?: Schema): Record<string, JsonValue> {
  const properties = propertiesOf(schema);
  const collected = new Map<string, (string | true)[]>();
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index] ?? '';
    if (!token.startsWith('--') || token === '--') throw new UsageError(`workflow arguments are --key value pairs; "${token}" has no key`);
    const equals = token.indexOf('=');
    const typedName = equals < 0 ? token.slice(2) : token.slice(2, equals);
    if (typedName === '') throw new UsageError(`"${token}" is not a usable workflow argument name`);
    let value: string | true;
    if (equals >= 0) value = token.slice(equals + 1);
    else {
      const next = tokens[index + 1];
      if (next === undefined || next.startsWith('--')) value = true;
      else {
        value = next;
        index += 1;
      }
    }
    const name = Object.hasOwn(properties, typedName) || !Object.hasOwn(properties, camelCase(typedName)) ? typedName : camelCase(typedName);
    collected.set(name, [...(collected.get(name) ?? []), value]);
  }
  // fromEntries defines each key: `__proto__` stays an own property instead of setting the prototype.
  return Object.fromEntries(
    [...collected].map(([name, values]): [string, JsonValue] => {
      const property = Object.hasOwn(properties, name) ? schemaOf(properties[name]) : undefined;
      if (property?.type === 'array' || values.length > 1) {
        const single = values.length === 1 ? typed(values[0] ?? true, undefined) : undefined;
        return [name, Array.isArray(single) ? single : values.map((value) => typed(value, schemaOf(property?.items)))];
      }
      return [name, typed(values[0] ?? true, property)];
    }),
  );
}
