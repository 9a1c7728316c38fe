/**
 * A bundle's launcher inside the installed engine (dist/cli/bundle-launcher.js,
 * reached from the bundle's launcher.mjs): reads the manifest (version 1 or
 * 2), then
 *
 * - `<command> setup [--approve | --no-approve]` checks the machine and stores
 *   the state file (setup.ts);
 * - `<command> [run options] [-- workflow arguments]` requires that state,
 *   registers the payload's module before Pi loads extensions (spec 2 rule 9)
 *   and hands over to `wfcli run <workflow>` with every argument.
 *
 * Exit codes and error lines are wfcli's (`CODE: message`, 1; usage 2).
 */
import { unsupportedNode } from '../../kernel/node-version.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, parseArgs, reportError, type CliIo } from '../command.js';
import { main } from '../main.js';
import { processIo } from '../process-io.js';
import { readManifest, type BundleManifest } from './manifest.js';
import { registerPayload } from './payload.js';
import { requireState, setupBundle } from './setup.js';

/** `wfcli run` options a bundle must not take: it runs its own workflow. */
const FOREIGN = new Set(['--script', '--name']);

function launcherHelp(manifest: BundleManifest): string {
  return `usage: ${manifest.command} setup [--approve | --no-approve] [--install-engine]
       ${manifest.command} [--input <json>] [--budget <json>] [--approve | --no-approve] [--json] [-- --key value ...]

The portable bundle of the workflow "${manifest.workflow}" (wfcli bundle).
"setup" checks this machine once: the installed Pi, the engine (with
--install-engine, installs it when missing), the payload, and the model
aliases, tools, commands and environment variables the workflow needs
(${describeNeeds(manifest)}); then it stores state.json beside the manifest.
Anything else runs the workflow as "wfcli run ${manifest.workflow}" does:
options first, then "--" and the workflow's arguments.
`;
}

function describeNeeds(manifest: BundleManifest): string {
  const parts = [
    ...manifest.aliases.map((name) => `alias ${name}`),
    ...manifest.tools.map((name) => `tool ${name}`),
    ...manifest.commands.map((name) => `command ${name}`),
    ...manifest.environment.map((name) => `$${name}`),
  ];
  return parts.length === 0 ? 'none recorded' : parts.join(', ');
}

async function setup(bundleDir: string, manifest: BundleManifest, argv: readonly string[], io: CliIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: [...argv], options: { approve: { type: 'boolean' }, 'no-approve': { type: 'boolean' }, 'install-engine': { type: 'boolean' } }, strict: true }));
  } catch (error) {
    io.stderr(`${manifest.command} setup: ${(error as Error).message}\n${launcherHelp(manifest)}`);
    return EXIT_USAGE;
  }
  if (values.approve === true && values['no-approve'] === true) {
    io.stderr(`${manifest.command} setup: --approve and --no-approve exclude each other\n`);
    return EXIT_USAGE;
  }
  const trust = values.approve === true ? true : values['no-approve'] === true ? false : undefined;
  const state = await setupBundle(bundleDir, manifest, io, trust);
  io.stdout(`ready: ${manifest.command} runs "${manifest.workflow}" with Pi ${state.hostVersion} and engine ${state.engineVersion}\n`);
  return EXIT_OK;
}

export async function runBundle(bundleDir: string, argv: readonly string[], io: CliIo = processIo): Promise<number> {
  // The sh launcher runs the node on PATH: refuse an old one as wfcli does, before loading anything.
  const oldNode = unsupportedNode();
  if (oldNode !== undefined) {
    io.stderr(`CONFIG_ERROR: ${oldNode}\n`);
    return EXIT_FAILED;
  }
  let manifest: BundleManifest;
  try {
    manifest = readManifest(bundleDir);
  } catch (error) {
    return reportError(error, io);
  }
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    io.stdout(launcherHelp(manifest));
    return EXIT_OK;
  }
  try {
    if (first === 'setup') return await setup(bundleDir, manifest, rest, io);
    const options = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
    const foreign = options.find((token) => FOREIGN.has(token.split('=')[0] ?? ''));
    if (foreign !== undefined) {
      io.stderr(`${manifest.command}: ${foreign} is not an option of a bundle's launcher\n${launcherHelp(manifest)}`);
      return EXIT_USAGE;
    }
    requireState(bundleDir, manifest);
    const payload = await registerPayload(bundleDir, manifest);
    return await main(['run', manifest.workflow, ...argv], { ...io, bundleModules: [payload] });
  } catch (error) {
    return reportError(error, io);
  }
}
