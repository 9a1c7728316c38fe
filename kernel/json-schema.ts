/**
 * ajv set-up shared by every JSON boundary (settings, registry schemas,
 * function input/output, journal records).
 */
import { Ajv, type ErrorObject, type Options } from 'ajv';

/** A strict validator: unknown schema keywords are errors, every error is reported. */
export function createAjv(options: Options = {}): Ajv {
  return new Ajv({ strict: true, allErrors: true, ...options });
}

/** `"/concurrency must be <= 16; /tools/0 must be string"`; the path is a JSON pointer. */
export function formatAjvErrors(errors: readonly ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return 'invalid value';
  return errors
    .map((error) => {
      const where = error.instancePath === '' ? '(root)' : error.instancePath;
      if (error.keyword === 'additionalProperties') {
        const extra = (error.params as { additionalProperty?: string }).additionalProperty;
        return `${where} has unknown key "${extra ?? '?'}"`;
      }
      return `${where} ${error.message ?? 'is invalid'}`;
    })
    .join('; ');
}
