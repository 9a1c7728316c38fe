/**
 * One role file: Markdown whose YAML front matter holds the role's policy
 * (description, model, selectors, context files, overrideSystemPrompt) and
 * whose body is prompt guidance. The front matter is validated with ajv and
 * unknown keys are refused, so a typo never silently drops a policy.
 */
import { createRequire } from 'node:module';
import { basename, dirname } from 'node:path';
import { WorkflowError, compileOnFirstUse, formatAjvErrors, messageOf, normalizeSettingsSelectors } from '../kernel/index.js';

type YamlParse = (source: string) => unknown;
let yamlParse: YamlParse | undefined;

/** `yaml` loads on the first role file read: a session or command without role files never pays its ~40 ms. */
function parseYaml(source: string): unknown {
  yamlParse ??= (createRequire(import.meta.url)('yaml') as { parse: YamlParse }).parse;
  return yamlParse(source);
}

/** Role names, like alias names: the file name without `.md`. */
export const ROLE_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]*$/;
export const ROLE_FILE_EXTENSION = '.md';

export interface RoleDefinition {
  readonly name: string;
  readonly description: string;
  /** An alias or `provider/model[:thinking]`; used when the call names no model. */
  readonly model?: string;
  readonly tools?: readonly string[];
  readonly skills?: readonly string[];
  /** Normalized like settings selectors: relative paths resolve from the role file's directory. */
  readonly extensions?: readonly string[];
  readonly contextFiles?: boolean | readonly string[];
  /** The body replaces the system prompt instead of being appended to it. */
  readonly overrideSystemPrompt: boolean;
  /** The Markdown body (trimmed); may be empty. */
  readonly prompt: string;
}

const selectors = { type: 'array', items: { type: 'string' } } as const;

/** The front matter of a role file. */
export const ROLE_FRONT_MATTER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['description'],
  properties: {
    description: { type: 'string', minLength: 1, pattern: '\\S' },
    model: { type: 'string', minLength: 1, pattern: '^\\S+$' },
    tools: selectors,
    skills: selectors,
    extensions: selectors,
    contextFiles: { anyOf: [{ type: 'boolean' }, selectors] },
    overrideSystemPrompt: { type: 'boolean' },
  },
} as const;

interface FrontMatter {
  readonly description: string;
  readonly model?: string;
  readonly tools?: string[];
  readonly skills?: string[];
  readonly extensions?: string[];
  readonly contextFiles?: boolean | string[];
  readonly overrideSystemPrompt?: boolean;
}

const validateFrontMatter = compileOnFirstUse<FrontMatter>(ROLE_FRONT_MATTER_SCHEMA);

function invalid(file: string, problem: string): WorkflowError {
  return new WorkflowError('CONFIG_ERROR', `Role file ${file}: ${problem}`, { file });
}

/** The role name a file defines, or undefined when the file is not a role file (not `.md`, hidden). */
export function roleNameOf(fileName: string): string | undefined {
  if (fileName.startsWith('.') || !fileName.endsWith(ROLE_FILE_EXTENSION)) return undefined;
  return fileName.slice(0, -ROLE_FILE_EXTENSION.length);
}

/** Splits `---\n<yaml>\n---\n<body>`; a role file must open with front matter. */
function split(text: string, file: string): { readonly yaml: string; readonly body: string } {
  const lines = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n');
  if (lines[0]?.trimEnd() !== '---') throw invalid(file, 'it must start with YAML front matter between two "---" lines');
  const end = lines.findIndex((line, index) => index > 0 && line.trimEnd() === '---');
  if (end < 0) throw invalid(file, 'the front matter has no closing "---" line');
  return { yaml: lines.slice(1, end).join('\n'), body: lines.slice(end + 1).join('\n').trim() };
}

/**
 * Parses one role file's text. `file` names it in errors and anchors relative
 * extension selectors; `home` expands `~`. @throws CONFIG_ERROR naming the file
 */
export function parseRoleFile(text: string, file: string, home: string): RoleDefinition {
  const name = roleNameOf(basename(file));
  if (name === undefined || !ROLE_NAME_PATTERN.test(name)) {
    throw invalid(file, `the file name must be <role>.md where <role> matches ${ROLE_NAME_PATTERN.source}`);
  }
  const { yaml, body } = split(text, file);
  let data: unknown;
  try {
    data = parseYaml(yaml);
  } catch (error) {
    throw invalid(file, `the front matter is not valid YAML: ${messageOf(error)}`);
  }
  if (!validateFrontMatter(data)) throw invalid(file, `invalid front matter: ${formatAjvErrors(validateFrontMatter.errors)}`);
  const override = data.overrideSystemPrompt === true;
  if (override && body === '') throw invalid(file, 'overrideSystemPrompt needs a body: it would replace the system prompt with nothing');
  let extensions: string[] | undefined;
  try {
    extensions = data.extensions === undefined ? undefined : normalizeSettingsSelectors(data.extensions, dirname(file), home);
  } catch (error) {
    throw invalid(file, messageOf(error));
  }
  return Object.freeze({
    name,
    description: data.description.trim(),
    ...(data.model === undefined ? {} : { model: data.model }),
    ...(data.tools === undefined ? {} : { tools: Object.freeze([...data.tools]) }),
    ...(data.skills === undefined ? {} : { skills: Object.freeze([...data.skills]) }),
    ...(extensions === undefined ? {} : { extensions: Object.freeze(extensions) }),
    ...(data.contextFiles === undefined ? {} : { contextFiles: typeof data.contextFiles === 'boolean' ? data.contextFiles : Object.freeze([...data.contextFiles]) }),
    overrideSystemPrompt: override,
    prompt: body,
  });
}
