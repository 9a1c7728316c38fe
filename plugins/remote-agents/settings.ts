/**
 * The remote agents setting: `extensionSettings["remote-agents"]` in the
 * GLOBAL settings file only (spec 1 "Settings files": core validates the
 * structure, this validator the value).
 *
 *   { "database": "postgres://user@db.example/workflows",   the DBOS system database
 *     "queue": "pi-agents",                                   default "pi-agents"
 *     "remote": "origin",                                     the git remote workers fetch from
 *     "agents": "all" | { "labels": ["review*"] } }           which agents run remotely, default "all"
 *
 * Sending a person's agents, and their prompts, to machines elsewhere is
 * that person's choice: a project file cannot turn it on, so its key is
 * refused there by name, as the trajectory viewer's is.
 */
import micromatch from 'micromatch';
import { compileOnFirstUse, formatAjvErrors, readGlobalSettingsFile, settingsPaths, WorkflowError, type JsonValue, type SettingsValidationContext } from '../../kernel/index.js';

export const SETTINGS_KEY = 'remote-agents';
export const DEFAULT_QUEUE = 'pi-agents';

export interface RemoteSettings {
  readonly database: string;
  readonly queue: string;
  readonly remote: string;
  readonly agents: 'all' | { readonly labels: readonly string[] };
}

interface RemoteSettingsInput {
  readonly database: string;
  readonly queue?: string;
  readonly remote?: string;
  readonly agents?: RemoteSettings['agents'];
}

/** Queue and remote names become SQL values and git arguments: plain names only. */
export const PLAIN_NAME = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$';

const validate = compileOnFirstUse<RemoteSettingsInput>({
  type: 'object',
  additionalProperties: false,
  required: ['database'],
  properties: {
    database: { type: 'string', pattern: '^postgres(ql)?://', maxLength: 2048 },
    queue: { type: 'string', pattern: PLAIN_NAME },
    remote: { type: 'string', pattern: PLAIN_NAME },
    agents: {
      oneOf: [
        { const: 'all' },
        { type: 'object', additionalProperties: false, required: ['labels'], properties: { labels: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } } } },
      ],
    },
  },
});

const SHAPE = '{ "database": "postgres://...", "queue"?: name, "remote"?: git remote name, "agents"?: "all" | { "labels": [glob, ...] } }';

/** The validated settings of one value; throws CONFIG_ERROR naming the key and the expected shape. */
export function parseRemoteSettings(value: unknown, where: string): RemoteSettings {
  if (!validate(value)) throw new WorkflowError('CONFIG_ERROR', `${where}: extensionSettings["${SETTINGS_KEY}"] ${formatAjvErrors(validate.errors)}; expected ${SHAPE}`);
  return Object.freeze({ database: value.database, queue: value.queue ?? DEFAULT_QUEUE, remote: value.remote ?? 'origin', agents: value.agents ?? 'all' });
}

/** Registered as the workflow extension's `validateSettings`: refuses the key in a project file. */
export function validateRemoteSettings(settings: Readonly<Record<string, JsonValue>>, context: SettingsValidationContext): void {
  const value = settings[SETTINGS_KEY];
  if (value === undefined) return;
  const where = context.path ?? `the ${context.source} settings`;
  if (context.source === 'project') {
    throw new WorkflowError('CONFIG_ERROR', `${where}: extensionSettings["${SETTINGS_KEY}"] is read from the global settings file only (remote agents are a person's choice, not a project's); remove it from the project file`);
  }
  parseRemoteSettings(value, where);
}

/** The global file's settings, undefined when it names none; throws CONFIG_ERROR for an invalid value. */
export function readRemoteSettings(agentDir: string): RemoteSettings | undefined {
  const read = readGlobalSettingsFile(agentDir);
  if (read.state !== 'read') return undefined;
  const value = read.data.extensionSettings?.[SETTINGS_KEY];
  return value === undefined ? undefined : parseRemoteSettings(value, settingsPaths(agentDir, agentDir).globalPath);
}

/** Whether an agent with this label runs remotely. */
export function wantsRemote(settings: RemoteSettings, label: string): boolean {
  return settings.agents === 'all' || micromatch.isMatch(label, [...settings.agents.labels]);
}
