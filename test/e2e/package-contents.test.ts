/**
 * Laziness hides nothing: a fresh Pi session with this package installed (a
 * copy as users get it, installPackage) offers the model every tool the
 * package registers, and Pi's command list (RPC `get_commands`) holds every
 * command and every prompt of `prompts/`, although the entries load their
 * implementation only on first use (docs/wfcli.md, "What starts when"). The
 * package ships no skill. Runs on both Pis (PI_CLI=latest).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { PI_CLI, REPO_ROOT, createPiHome, installPackage, piEnv, runPi, type PiHome } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

/** The tools the package's entries register (docs/tools.md, docs/subagents.md). */
const PACKAGE_TOOLS = [
  'workflow',
  'workflow_catalog',
  'workflow_respond',
  'workflow_resume',
  'workflow_retry',
  'workflow_status',
  'workflow_stop',
  'subagents_inspect',
  'subagents_retry',
  'subagents_run',
  'subagents_steer',
  'subagents_stop',
];
const PACKAGE_COMMANDS = ['subagents', 'workflow'];
const PROMPTS = readdirSync(join(REPO_ROOT, 'prompts'))
  .filter((file) => file.endsWith('.md'))
  .map((file) => basename(file, '.md'))
  .sort();

interface ListedCommand {
  readonly name: string;
  readonly source: 'extension' | 'prompt' | 'skill';
  readonly sourceInfo?: { readonly path?: string };
}

/** `get_commands` of a fresh `pi --mode rpc` session. */
async function listCommands(pi: PiHome): Promise<ListedCommand[]> {
  const child = spawn(process.execPath, [PI_CLI, '--mode', 'rpc', '--no-session'], { cwd: pi.cwd, env: piEnv(pi), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    child.stdin.write(`${JSON.stringify({ id: 'list', type: 'get_commands' })}\n`);
    for await (const line of lines) {
      const message = JSON.parse(line) as { type?: string; id?: string; success?: boolean; error?: string; data?: { commands: ListedCommand[] } };
      if (message.type !== 'response' || message.id !== 'list') continue;
      if (message.success !== true || message.data === undefined) throw new Error(`get_commands failed: ${message.error ?? line}`);
      return message.data.commands;
    }
    throw new Error(`pi --mode rpc ended without answering get_commands:\n${stderr}`);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

describe('a fresh Pi session with the package', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  let packageRoot: string;
  const offered: (readonly string[])[] = [];
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    model.main(({ tools }) => {
      offered.push(tools);
      return { text: 'ok' };
    });
    packageRoot = await installPackage(pi);
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  it('offers the model every tool the package registers', async () => {
    await runPi(pi, ['-p', '--approve', '--no-session', 'Which tools do you have?']);
    const tools = offered.at(-1) ?? [];
    expect(tools).toEqual(expect.arrayContaining(PACKAGE_TOOLS));
    expect(tools.filter((name) => name.startsWith('workflow') || name.startsWith('subagents')).sort()).toEqual([...PACKAGE_TOOLS].sort());
  });

  it("lists the package's commands and every prompt of prompts/; the package has no skill", async () => {
    const commands = (await listCommands(pi)).filter((command) => command.sourceInfo?.path?.startsWith(packageRoot) === true);
    const names = (source: ListedCommand['source']): string[] => commands.filter((command) => command.source === source).map((command) => command.name).sort();
    expect(names('extension')).toEqual(PACKAGE_COMMANDS);
    expect(names('prompt')).toEqual(PROMPTS);
    expect(names('skill')).toEqual([]);
  });
});
