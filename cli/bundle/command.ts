/**
 * `wfcli bundle <workflow-name> [--name <command>] [--output <directory>] [--force]`
 * (spec 1, docs/bundles.md): a portable bundle of a registered workflow.
 *
 * The workflow's registration must declare `source` (the defining extension
 * module); that module and its import graph are built with rollup
 * (build.ts) into `payload/extension.mjs`. Everything is checked and built in
 * memory first: an undeclared import, a host package or a computed dynamic
 * import fails before anything is written; then the directory appears whole
 * (output.ts). rollup loads only here, not for `wfcli --help`.
 */
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { WorkflowError, registeredWorkflowFunctionSources } from '../../kernel/index.js';
import { PACKAGE_NAME, findPackage } from '../../plugins/host/package-info.js';
import { EXIT_OK, type CliIo, type CommandSpec, type ParsedCommand } from '../command.js';
import { launcherTarget, requireHeadlessWorkflow } from '../export.js';
import { modulePath } from '../provenance.js';
import { withLocalSession } from '../session.js';
import { coreExportOf } from './core-export.js';
import { MANIFEST_FILE, MANIFEST_VERSION, PAYLOAD_FILE, checkManifest, type BundleManifest } from './manifest.js';
import { LAUNCHER_MODULE, launcherModule, launcherShell, writeBundleDirectory } from './output.js';

/** The directory of the nearest package.json above a module, else the module's directory. */
export function packageRootOf(file: string): string {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return dirname(file);
  }
}

/** The defining module of a registered workflow, a readable file; INVALID_METADATA otherwise. */
function definingModule(workflow: string): { source: string; path: string; dependencies: readonly string[] } {
  const entry = registeredWorkflowFunctionSources()[workflow];
  if (entry?.source === undefined) {
    throw new WorkflowError(
      'INVALID_METADATA',
      `The workflow "${workflow}" cannot be bundled: its registration${entry === undefined ? '' : ` ("${entry.extension}")`} declares no \`source\`; add \`source: import.meta.url\` to registerWorkflowExtension`,
      { name: workflow },
    );
  }
  const path = modulePath(entry.source);
  if (path === undefined || !existsSync(path) || !statSync(path).isFile()) {
    throw new WorkflowError('INVALID_METADATA', `The workflow "${workflow}" cannot be bundled: its source ${entry.source} is not a module file here`, { name: workflow, source: entry.source });
  }
  // Pi loads TypeScript extensions through its own transpiler; rollup reads JavaScript.
  if (/\.[mc]?tsx?$/.test(path)) {
    throw new WorkflowError('INVALID_METADATA', `The workflow "${workflow}" cannot be bundled: its source ${path} is TypeScript; bundle the compiled JavaScript module`, { name: workflow, source: entry.source });
  }
  return { source: entry.source, path, dependencies: entry.dependencies };
}

function engineVersion(): string {
  const version = findPackage()?.version;
  if (version === undefined) throw new WorkflowError('CONFIG_ERROR', `Cannot find the ${PACKAGE_NAME} package this wfcli belongs to`);
  return version;
}

async function run(parsed: ParsedCommand, io: CliIo): Promise<number> {
  const { workflow, command, output, force } = launcherTarget(parsed, io);
  return withLocalSession(io, {}, async () => {
    requireHeadlessWorkflow(workflow);
    const defining = definingModule(workflow);
    const coreModule = coreExportOf(defining.path);
    const { buildPayload } = await import('./build.js');
    const started = performance.now();
    const built = await buildPayload({
      sourcePath: defining.path,
      packageRoot: packageRootOf(defining.path),
      dependencies: defining.dependencies,
      ...(coreModule === undefined ? {} : { coreModule }),
      onWarning: (message) => io.stderr(`warning: ${message}\n`),
    });
    const payloadBytes = Buffer.byteLength(built.code);
    const manifest: BundleManifest = checkManifest({
      version: MANIFEST_VERSION,
      command,
      workflow,
      source: { module: defining.source, export: 'default' },
      bundler: { name: 'rollup', version: built.rollupVersion },
      engine: { name: PACKAGE_NAME, version: engineVersion() },
      dependencies: [...defining.dependencies].sort(),
      payload: { path: PAYLOAD_FILE, sha256: createHash('sha256').update(built.code).digest('hex'), bytes: payloadBytes },
      ...built.needs,
    });
    writeBundleDirectory(
      output,
      [
        { path: command, content: launcherShell(command, workflow), mode: 0o755 },
        { path: LAUNCHER_MODULE, content: launcherModule(command, manifest.engine.version), mode: 0o644 },
        { path: MANIFEST_FILE, content: `${JSON.stringify(manifest, null, 2)}\n`, mode: 0o644 },
        { path: PAYLOAD_FILE, content: built.code, mode: 0o644 },
      ],
      force,
    );
    const ms = Math.round(performance.now() - started);
    const from =
      coreModule === undefined
        ? `from a module graph of ${built.graphFiles.length} files, ${built.graphBytes} bytes`
        : `importing ${coreModule} from the installed engine (the core package stays external)`;
    io.stderr(`bundled ${workflow}: payload ${payloadBytes} bytes, ${from} (rollup ${built.rollupVersion}, ${ms} ms)\n`);
    io.stdout(`${output}\n`);
    return EXIT_OK;
  });
}

export const bundleCommand: CommandSpec = {
  name: 'bundle',
  usage: ['wfcli bundle <workflow-name> [--name <command>] [--output <directory>] [--force]'],
  help: `  --name <command>      the launcher's name (default: the workflow name)
  --output <directory>  where to write the bundle (default: ./<command>)
  --force               replace an existing output

The workflow's registration must declare "source" (source: import.meta.url).
That module and its import graph are built with rollup into
payload/extension.mjs, tree-shaken: packages named in the registration's
"dependencies" are inlined; Node builtins and ${PACKAGE_NAME} stay
external (a workflow the core package registers itself, such as reviewLoop,
is imported from the installed engine); an undeclared package, a Pi package or a dynamic import of a
computed specifier is refused (INVALID_METADATA) before anything is written.
The directory holds the launcher <command>, launcher.mjs, manifest.json
(version 2) and the payload; it appears whole or not at all. Run
"<command> setup" once where it is installed, then "<command> -- --key value".
Prints the bundle's path (its sizes on stderr). See docs/bundles.md.`,
  options: { name: { type: 'string' }, output: { type: 'string' }, force: { type: 'boolean' } },
  positionals: { min: 1, max: 1 },
  run,
};
