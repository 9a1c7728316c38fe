/**
 * What the built `wfcli` loads (docs/wfcli.md "What starts when"): the
 * commands that read stored runs import no Pi SDK, no rollup, no ses, no
 * tapable (the kernel's hooks: the engine) and start no process; help,
 * `list` and `status` not even ajv's compiler (the snapshot's validator is
 * compiled at build time; `inspect` compiles the events schema it reads). A resolve hook registered before the entry records every module
 * the process resolves; the runs read are real ones, stored by the engine.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowEngine, createKernel, workflowsRoot } from '../../kernel/index.js';

const WFCLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'wfcli.js');

/** Registered with --import: appends each resolved URL to $WFCLI_LOADED at exit. */
const HOOK = `import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
const seen = [];
registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); seen.push(result.url); return result; } });
process.on('exit', () => appendFileSync(process.env.WFCLI_LOADED, seen.join('\\n') + '\\n'));
`;

/** Module URLs no run-reading command may load. */
const FORBIDDEN = [/@earendil-works\//, /\/node_modules\/rollup\//, /\/node_modules\/ses\//, /\/node_modules\/tapable\//, /^node:child_process$/, /^node:worker_threads$/];
const AJV_COMPILER = /\/node_modules\/ajv\/dist\/(ajv|core|compile\/)/;

let dir: string;
let home: string;
let cwd: string;
let runId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wfcli-startup-'));
  home = join(dir, 'home');
  cwd = join(dir, 'project');
  mkdirSync(join(home, 'agent'), { recursive: true });
  mkdirSync(cwd);
  writeFileSync(join(dir, 'hook.mjs'), HOOK);
  const engine = new WorkflowEngine({ kernel: createKernel({ plugins: [] }), sessionId: 'startup-test', root: workflowsRoot(home), agentDir: join(home, 'agent'), home });
  try {
    const handle = await engine.launch({ name: 'stored', cwd, script: "log('stored');\nreturn 1;\n", args: null, foreground: true });
    expect((await handle.outcome).state).toBe('completed');
    runId = handle.runId;
  } finally {
    await engine.close();
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function loadedBy(args: readonly string[]): { status: number | null; stdout: string; loaded: string[] } {
  const record = join(dir, `loaded-${args.join('-').replace(/[^a-z0-9-]/gi, '_')}.txt`);
  writeFileSync(record, '');
  const env = { ...process.env, HOME: home, PI_CODING_AGENT_DIR: join(home, 'agent'), WFCLI_LOADED: record };
  const result = spawnSync(process.execPath, ['--import', pathToFileURL(join(dir, 'hook.mjs')).href, WFCLI, ...args], { cwd, env, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, loaded: readFileSync(record, 'utf8').split('\n').filter(Boolean) };
}

describe('wfcli commands that read stored runs load no Pi, engine or compiler', () => {
  it.each([[['--help']], [['--version']], [['list']], [['list', '--json']], [['status', '<run>']], [['inspect']], [['doctor', 'cleanup']]])('wfcli %j', (args) => {
    const { status, stdout, loaded } = loadedBy(args.map((arg) => (arg === '<run>' ? runId : arg)));
    expect(status).toBe(0);
    expect(stdout).not.toBe('');
    if (args[0] === 'list' || args[0] === 'status') expect(stdout).toContain(runId);
    // The hook saw the command's own modules: the record is not empty by accident.
    expect(loaded.some((url) => url.endsWith('/dist/cli/wfcli.js'))).toBe(true);
    const forbidden = args[0] === 'inspect' || args[0] === 'doctor' ? FORBIDDEN : [...FORBIDDEN, AJV_COMPILER];
    for (const url of loaded) for (const pattern of forbidden) expect(url, `${args.join(' ')} loads ${url}`).not.toMatch(pattern);
  });
});
