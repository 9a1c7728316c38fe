/**
 * Temporary Pi agent dirs for transport tests (never the real ~/.pi).
 *
 * The faux agent dir registers pi-ai's deterministic faux stream under a
 * unique API id and declares it in the temp dir's models.json, so sessions
 * resolve `faux/<model>` through the same models.json path a user's custom
 * provider takes. Script its answers with `faux.setResponses([...])`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FauxModelDefinition } from '@earendil-works/pi-ai';
import { registerFauxProvider } from '@earendil-works/pi-ai/compat';
import type { FauxProviderRegistration } from '@earendil-works/pi-ai/compat';

export interface TempAgentDir {
  /** Root temp dir: holds `agent/` and `project/`. */
  readonly root: string;
  readonly agentDir: string;
  /** A project cwd beside the agent dir. */
  readonly cwd: string;
  close(): void;
}

/** A temp tree with `agent/models.json` (when given) and `agent/settings.json` tuned for tests. */
export function createTempAgentDir(models?: unknown, settings: Record<string, unknown> = {}): TempAgentDir {
  const root = mkdtempSync(join(tmpdir(), 'pi-agent-'));
  const agentDir = join(root, 'agent');
  const cwd = join(root, 'project');
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  if (models !== undefined) writeFileSync(join(agentDir, 'models.json'), JSON.stringify(models, null, 2));
  // No automatic provider retries: a scripted failure should fail fast.
  writeFileSync(join(agentDir, 'settings.json'), JSON.stringify({ retry: { enabled: false }, ...settings }, null, 2));
  return { root, agentDir, cwd, close: () => rmSync(root, { recursive: true, force: true }) };
}

/** Writes `<agentDir>/skills/<name>/SKILL.md`, where Pi discovers user skills; returns the file. */
export function writeSkill(agentDir: string, name: string, description: string): string {
  const dir = join(agentDir, 'skills', name);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'SKILL.md');
  writeFileSync(file, `---\nname: ${name}\ndescription: ${description}\n---\n\nFollow the ${name} instructions.\n`);
  return file;
}

/**
 * Writes `<agentDir>/extensions/<name>.js`, where Pi discovers user
 * extensions: it registers the tool `<name>_tool` and, when it loads, appends
 * its name to `<root>/loaded.log` (so a test sees whether its code ran).
 * Returns the file.
 */
export function writeToolExtension(dir: TempAgentDir, name: string): string {
  const extensions = join(dir.agentDir, 'extensions');
  mkdirSync(extensions, { recursive: true });
  const file = join(extensions, `${name}.js`);
  const log = JSON.stringify(join(dir.root, 'loaded.log'));
  writeFileSync(
    file,
    [
      `import { appendFileSync } from 'node:fs';`,
      `export default function (pi) {`,
      `  appendFileSync(${log}, ${JSON.stringify(`${name}\n`)});`,
      `  pi.registerTool({`,
      `    name: ${JSON.stringify(`${name}_tool`)},`,
      `    label: ${JSON.stringify(name)},`,
      `    description: 'A test tool',`,
      `    parameters: { type: 'object', properties: {} },`,
      `    async execute() { return { content: [{ type: 'text', text: 'ok' }], details: undefined }; },`,
      `  });`,
      `}`,
      '',
    ].join('\n'),
  );
  return file;
}

export interface FauxAgentDir extends TempAgentDir {
  readonly faux: FauxProviderRegistration;
  readonly provider: string;
  /** `faux/<first model>` with an optional `:thinking` suffix. */
  model(thinking?: string): string;
}

export interface FauxAgentDirOptions {
  readonly provider?: string;
  readonly models?: FauxModelDefinition[];
}

const DEFAULT_MODELS: FauxModelDefinition[] = [{ id: 'faux-1', name: 'Faux One', reasoning: true, contextWindow: 128000, maxTokens: 16384 }];

export function createFauxAgentDir(options: FauxAgentDirOptions = {}): FauxAgentDir {
  const provider = options.provider ?? 'faux';
  const models = options.models ?? DEFAULT_MODELS;
  const api = `faux-test-${Math.random().toString(36).slice(2, 10)}`;
  const faux = registerFauxProvider({ api, provider, models });
  const temp = createTempAgentDir({
    providers: {
      [provider]: {
        baseUrl: 'http://127.0.0.1:9/faux',
        api,
        apiKey: 'faux-key',
        models: models.map((model) => ({ ...model, input: model.input ?? ['text'] })),
      },
    },
  });
  const first = models[0]?.id ?? 'faux-1';
  return {
    ...temp,
    faux,
    provider,
    model: (thinking) => `${provider}/${first}${thinking === undefined ? '' : `:${thinking}`}`,
    close() {
      faux.unregister();
      temp.close();
    },
  };
}
