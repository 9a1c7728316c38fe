/**
 * ajv set-up shared by every JSON boundary (settings, registry schemas,
 * function input/output, journal records).
 */
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, Options, Schema, ValidateFunction } from 'ajv';

let ajvModule: typeof import('ajv') | undefined;

/** ajv itself, loaded on the first validator made: loading its modules is a cost of its own, which a Pi start or `wfcli --help` need not pay. */
export function loadAjv(): typeof import('ajv') {
  return (ajvModule ??= createRequire(import.meta.url)('ajv') as typeof import('ajv'));
}

/** A strict validator: unknown schema keywords are errors, every error is reported. */
export function createAjv(options: Options = {}): Ajv {
  return new (loadAjv().Ajv)({ strict: true, allErrors: true, ...options });
}

/** `createAjv(options)`, made on first call and then shared by the validators that pass it to `compileOnFirstUse`. */
export function lazyAjv(options: Options = {}): () => Ajv {
  let ajv: Ajv | undefined;
  return () => (ajv ??= createAjv(options));
}

/** A validator compiled on its first call; `errors` are the last call's, like ajv's. */
export interface LazyValidator<T> {
  (data: unknown): data is T;
  readonly errors?: ErrorObject[] | null | undefined;
}

/**
 * `ajv.compile(schema)` deferred to the first validation: compiling costs
 * milliseconds per schema, and a module-level compile would make every Pi
 * start pay for boundaries the session may never cross (docs/wfcli.md,
 * "What starts when"). `ajv` is the instance to compile with (`lazyAjv`), or
 * the options of one made for this validator alone.
 */
export function compileOnFirstUse<T = unknown>(schema: Schema, ajv: (() => Ajv) | Options = {}): LazyValidator<T> {
  const instance = typeof ajv === 'function' ? ajv : lazyAjv(ajv);
  let compiled: ValidateFunction<T> | undefined;
  const validate = (data: unknown): data is T => (compiled ??= instance().compile<T>(schema))(data);
  Object.defineProperty(validate, 'errors', { get: () => compiled?.errors });
  return validate as LazyValidator<T>;
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
