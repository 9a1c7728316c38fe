/**
 * `prompt(template, values)`: safe interpolation of JSON values. Shared by the
 * sandbox (script primitive) and the host (function context), so it takes its
 * error factory instead of importing one.
 */
const PLACEHOLDER = /\{\{\s*([A-Za-z_$][\w$]*)\s*\}\}/g;

export function renderPrompt(template: unknown, values: unknown, fail: (message: string) => Error): string {
  if (typeof template !== 'string') throw fail('prompt template must be a string');
  if (values === undefined) values = {};
  if (typeof values !== 'object' || values === null || Array.isArray(values)) throw fail('prompt values must be a plain object');
  const record = values as Record<string, unknown>;
  const rendered = new Map<string, string>();
  for (const [key, value] of Object.entries(record)) {
    if (value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function') {
      throw fail(`prompt value "${key}" is a promise; await it first`);
    }
    let text: string | undefined;
    try {
      text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
    } catch (error) {
      throw fail(`prompt value "${key}" must be JSON: ${(error as Error).message}`);
    }
    if (text === undefined) throw fail(`prompt value "${key}" must be JSON`);
    rendered.set(key, text);
  }
  return template.replace(PLACEHOLDER, (_match, key: string) => {
    const text = rendered.get(key);
    if (text === undefined) throw fail(`prompt has no value for {{${key}}}`);
    return text;
  });
}
