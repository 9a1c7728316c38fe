/**
 * The machines of a remote agents test: a bare git remote the host's project
 * pushes to, and `wfcli worker` processes, each with its own HOME (its own
 * Pi agent dir pointing at the loopback model) and its own clone of the
 * remote. A worker is ready once it printed that it listens.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '../../plugins/worktrees/git-fixture.js';
import { createPiHome, startWfcli, type PiHome, type PiProcess } from './pi-cli.js';
import type { ScriptedModel } from './scripted-model.js';

/** A bare repository beside the host's project, its `origin`, with the project's branch pushed. */
export function addBareRemote(host: PiHome): string {
  const remote = join(host.home, 'remote.git');
  git(host.home, 'init', '--quiet', '--bare', remote);
  git(host.cwd, 'remote', 'add', 'origin', remote);
  git(host.cwd, 'push', '--quiet', 'origin', 'HEAD');
  return remote;
}

/** The host's global settings: remote agents on this database. */
export function enableRemoteAgents(host: PiHome, database: string, extra: Record<string, unknown> = {}): void {
  const dir = join(host.agentDir, 'pi-extensible-workflows');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({ extensionSettings: { 'remote-agents': { database, ...extra } } }, null, 2));
}

export interface Worker {
  readonly home: PiHome;
  readonly clone: string;
  readonly process: PiProcess;
  /** The executor ID it printed. */
  readonly executor: string;
}

export async function startWorker(model: ScriptedModel, database: string, remote: string, args: readonly string[] = []): Promise<Worker> {
  const home = createPiHome(model);
  const clone = join(home.home, 'clone');
  git(home.home, 'clone', '--quiet', remote, clone);
  const process = startWfcli(home, ['worker', '--database', database, '--repo', clone, ...args], { cwd: clone });
  const [, executor = ''] = await process.printed(/^worker (\S+) listening/m);
  return { home, clone, process, executor };
}
