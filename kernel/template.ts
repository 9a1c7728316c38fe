/**
 * `prompt(template, values)`: safe interpolation of JSON values. Shared by the
 * sandbox (script primitive) and the host (function context), so it takes its
 * error factory instead of importing one.
 *
 * The template syntax is the public runtime's: `{name}` is a placeholder,
 * `{{` and `}}` are a literal `{` and `}`; any other brace is text. Every
 * placeholder needs a value and every value needs a placeholder, so a
 * template and its values that disagree fail at the call instead of
 * sending an agent the word `{reports}` (docs/runs.md, "prompt").
 *
 * Runs created before this syntax (snapshots without `scriptLanguage`) keep
 * the old `{{name}}` form, so their stored scripts replay the prompts their
 * journals recorded.
 */

/** `legacy`: `{{ name }}` placeholders, unused values allowed (script language 1). */
export type PromptSyntax = 'braces' | 'legacy';

/** Runs launched before script language 2 (no `scriptLanguage` in their snapshot) keep `{{name}}` templates. */
export function promptSyntaxOf(scriptLanguage: number | undefined): PromptSyntax {
  return scriptLanguage === undefined ? 'legacy' : 'braces';
}

const TOKEN = /\{\{|\}\}|\{([A-Za-z_$][\w$]*)\}/g;
const LEGACY_PLACEHOLDER = /\{\{\s*([A-Za-z_$][\w$]*)\s*\}\}/g;

type Fail = (message: string) => Error;

/** The text a value is inserted as: a string as it is, any other JSON value as indented JSON. */
function renderValues(record: Readonly<Record<string, unknown>>, fail: Fail): Map<string, string> {
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
  return rendered;
}

export function renderPrompt(template: unknown, values: unknown, fail: Fail, syntax: PromptSyntax = 'braces'): string {
  if (typeof template !== 'string') throw fail('prompt template must be a string');
  if (values === undefined) values = {};
  if (typeof values !== 'object' || values === null || Array.isArray(values)) throw fail('prompt values must be a plain object');
  const record = values as Readonly<Record<string, unknown>>;
  if (syntax === 'legacy') return renderLegacy(template, renderValues(record, fail), fail);
  const placeholders = new Set<string>();
  for (const match of template.matchAll(TOKEN)) if (match[1] !== undefined) placeholders.add(match[1]);
  for (const name of placeholders) {
    if (!Object.hasOwn(record, name)) {
      throw fail(`prompt template has the placeholder {${name}} but no value "${name}"; pass it in the values object, or write {{${name}}} for the literal text {${name}}`);
    }
  }
  for (const key of Object.keys(record)) {
    if (placeholders.has(key)) continue;
    const doubled = template.includes(`{{${key}}}`) ? ` ({{${key}}} is the literal text {${key}}: placeholders take single braces)` : '';
    throw fail(`prompt value "${key}" is not used by the template: write {${key}} where it belongs${doubled}`);
  }
  const rendered = renderValues(record, fail);
  return template.replace(TOKEN, (match, name: string | undefined) => (name === undefined ? match[0]! : rendered.get(name)!));
}

function renderLegacy(template: string, rendered: ReadonlyMap<string, string>, fail: Fail): string {
  return template.replace(LEGACY_PLACEHOLDER, (_match, key: string) => {
    const text = rendered.get(key);
    if (text === undefined) throw fail(`prompt has no value for {{${key}}}`);
    return text;
  });
}
