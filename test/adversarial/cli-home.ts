/**
 * The real `wfcli` process for the adversarial reproductions (issue 24): a
 * fresh HOME with the loopback scripted model as Pi's default model, a
 * workflow extension of registered functions that hand hostile values back
 * (`echoKeys`, `deepOutput`, `loneOutput`), and helpers to run `wfcli` and
 * find a run's directory. Needs the built package (`npm run build`).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPiHome, REPO_ROOT, startWfcli, WFCLI, type PiHome, type PiProcess, type PiResult } from '../e2e/support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from '../e2e/support/scripted-model.js';

export { MODEL_ID } from '../e2e/support/scripted-model.js';

const EXTENSION = `import { registerWorkflowExtension } from 'pi-extensible-workflows';
export default function () {
  registerWorkflowExtension({
    version: '1.0.0', headline: 'Adversarial values', source: import.meta.url,
    functions: {
      echoKeys: {
        description: 'Echoes its input and builds a keyed result in the host.', input: { type: 'object' }, output: {},
        async run(input, context) {
          const branches = await context.parallel('host', Object.fromEntries([['__proto__', async () => ({ approved: true })], ['constructor', async () => 'c'], ['toString', async () => 't']]));
          return {
            input,
            branches,
            hostChecks: { keys: Object.keys(branches), plainPrototype: Object.getPrototypeOf(branches) === Object.prototype, inherited: branches.approved === undefined },
            made: JSON.parse('{"__proto__":{"polluted":true},"hasOwnProperty":1}'),
            settings: context.settings,
          };
        },
      },
      deepOutput: { description: 'Returns a value nested 5000 levels deep.', input: { type: 'object' }, output: {}, run() { let v = 0; for (let i = 0; i < 5000; i++) v = [v]; return v; } },
      loneOutput: { description: 'Returns a lone surrogate.', input: { type: 'object' }, output: {}, run() { return { text: 'a\\ud800b' }; } },
    },
  });
}
`;

export interface CliHome {
  readonly pi: PiHome;
  readonly model: ScriptedModel;
  /** Writes a script into the project directory; returns its name. */
  script(name: string, source: string): string;
  wfcli(args: readonly string[]): Promise<PiResult>;
  start(args: readonly string[]): PiProcess;
  /** The run ID `wfcli run` reported on stderr. */
  runIdOf(result: Pick<PiResult, 'stderr'>): string;
  /** The directory of a run of the project, whatever session created it. */
  runDir(runId: string): string;
  /** Global workflow settings (`<agentDir>/pi-extensible-workflows/settings.json`): a value, or its JSON text as it is. */
  settings(value: unknown): void;
  close(): Promise<void>;
}

const RUN_ID = /^run (wf-[0-9a-z]{9}-[0-9a-f]{8})$/m;
/** Past this a `wfcli` that has not exited is killed, so a hang fails with its output (below the suite's 120 s test time-out). */
const HANG_MS = 100_000;

export async function createCliHome(): Promise<CliHome> {
  if (!existsSync(WFCLI)) throw new Error(`${WFCLI} is missing: run \`npm run build\` first`);
  const model = await startScriptedModel();
  const pi = createPiHome(model);
  // What npm does for an extension's peer dependency: the package beside it.
  mkdirSync(join(pi.home, 'node_modules'));
  symlinkSync(REPO_ROOT, join(pi.home, 'node_modules', 'pi-extensible-workflows'));
  mkdirSync(join(pi.agentDir, 'extensions'));
  writeFileSync(join(pi.agentDir, 'extensions', 'adversarial.js'), EXTENSION);
  const settingsFile = join(pi.agentDir, 'pi-extensible-workflows', 'settings.json');
  mkdirSync(join(pi.agentDir, 'pi-extensible-workflows'));
  const projects = join(pi.home, '.pi', 'workflows', 'projects');
  return {
    pi,
    model,
    script(name, source) {
      writeFileSync(join(pi.cwd, name), source);
      return name;
    },
    async wfcli(args) {
      // A guard against a hang, not a timing expectation: one process may run several agents on a loaded machine.
      const wfcli = startWfcli(pi, args);
      const guard = setTimeout(() => void wfcli.kill(), HANG_MS);
      return wfcli.exited.finally(() => clearTimeout(guard));
    },
    start: (args) => startWfcli(pi, args),
    runIdOf(result) {
      const match = RUN_ID.exec(result.stderr);
      if (match?.[1] === undefined) throw new Error(`no run ID on stderr:\n${result.stderr}`);
      return match[1];
    },
    runDir(runId) {
      for (const project of readdirSync(projects)) {
        const sessions = join(projects, project, 'sessions');
        for (const session of readdirSync(sessions)) {
          const dir = join(sessions, session, 'runs', runId);
          if (existsSync(join(dir, 'snapshot.json'))) return dir;
        }
      }
      throw new Error(`no run ${runId} under ${projects}`);
    },
    settings(value) {
      writeFileSync(settingsFile, typeof value === 'string' ? value : JSON.stringify(value));
    },
    async close() {
      pi.close();
      await model.close();
    },
  };
}

export function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8')) as unknown;
}
