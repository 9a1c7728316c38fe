// The chunks `wfcli`'s quick commands load, and the engine's one chunk, for
// rollup.config.mjs's manualChunks.
import { basename, resolve } from 'node:path';

// `wfcli list` and `status` answer in tens of milliseconds, and Node's ES module
// loader costs about 1 ms per module it resolves, reads and links (measured: the
// same code as one file loads in half the instructions of its 17 chunks). So
// what these commands load is a few chunks:
// - the dispatcher's modules (all `--help` loads): those only the dispatcher
//   imports (cli/main.ts, cli/process-io.ts, which has side effects) in one
//   chunk, and those others import too (errors, terminal text, the command
//   parser) in another, which has none;
// - what the dispatcher loads before a command (the compile cache);
// - the rest of what `list` and `status` import: the run readers.
// A module left to rollup that one of these imports would be moved into it, so
// a module of the readers that a process of its own loads too (the sandbox,
// the isolated preflight) is a chunk of its own, as rollup makes it: each
// sandbox would load all the readers otherwise.
//
// The engine: a session loads the kernel with the host library, and rollup
// made that some 40 chunks, one per set of entries that share a module (the
// kernel's public entry, the sandbox, the isolated preflight, the read-only
// commands, each plugin library). Every module both the host library and the
// kernel's entry import, and none of the light roots (the sandbox, the
// preflight process, the commands that load no engine, the relay), goes to
// one `engine` chunk: no process loads it that did not load most of it
// before, and `wfcli run` loads 26 fewer modules (59 M fewer instructions).
// The kernel's entry imports no Pi SDK, so neither does that chunk. A
// module a light root imports too is grouped with the modules the same light
// roots import, as rollup would group it, so no light root loads more.
const CLI_FOLDER = `${resolve('build/cli')}/`;
const READER_COMMANDS = ['build/cli/list.js', 'build/cli/status.js'].map((file) => resolve(file));
const DISPATCHER = resolve('build/cli/wfcli.js');
const BEFORE_COMMAND = resolve('build/cli/compile-cache.js');
const OWN_PROCESSES = ['build/kernel/sandbox/worker.js', 'build/kernel/preflight/process.js'].map((file) => resolve(file));
const HOST_LIBRARY = resolve('build/src/index.js');
const KERNEL = resolve('build/kernel/index.js');
/** What loads no engine: the read-only commands and what they import on demand (docs/wfcli.md "What starts when"), and the relay. */
const LIGHT = [
  ...['list', 'status', 'inspect', 'report', 'transcript', 'view', 'view-source', 'cleanup'].map((name) => `build/cli/${name}.js`),
  ...['server', 'model', 'report'].map((name) => `build/lib/trajectory/${name}.js`),
  'build/relay/index.js',
  'build/relay/cli.js',
].map((file) => resolve(file));

function staticClosure(ids, getModuleInfo) {
  const seen = new Set();
  const visit = (id) => {
    const info = getModuleInfo(id);
    if (seen.has(id) || info === null || info.isExternal) return;
    seen.add(id);
    for (const imported of info.importedIds) visit(imported);
  };
  for (const id of ids) visit(id);
  return seen;
}

/** rollup's manualChunks for the above: the plan is made at its first call, from the module graph. */
export function startupChunks() {
  let chunkOf;
  return (id, { getModuleInfo }) => {
    if (chunkOf === undefined) {
      const readers = staticClosure(READER_COMMANDS, getModuleInfo);
      const dispatcherOnly = (module) => {
        const info = getModuleInfo(module);
        return !readers.has(module) && [...info.importers, ...info.dynamicImporters].every((importer) => importer.startsWith(CLI_FOLDER));
      };
      chunkOf = new Map();
      const dispatcher = staticClosure([DISPATCHER], getModuleInfo);
      dispatcher.delete(DISPATCHER);
      for (const module of dispatcher) chunkOf.set(module, dispatcherOnly(module) ? 'dispatcher' : 'dispatcher-shared');
      for (const module of staticClosure([BEFORE_COMMAND], getModuleInfo)) if (!chunkOf.has(module)) chunkOf.set(module, 'compile-cache');
      const ownProcesses = staticClosure(OWN_PROCESSES, getModuleInfo);
      for (const module of readers) if (!chunkOf.has(module)) chunkOf.set(module, ownProcesses.has(module) ? basename(module, '.js') : 'run-readers');
      // A renamed root would leave its modules to the engine chunk without a word.
      for (const root of [...OWN_PROCESSES, ...LIGHT, HOST_LIBRARY, KERNEL]) if (getModuleInfo(root) === null) throw new Error(`scripts/startup-chunks.mjs: ${root} is not in the build`);
      const lightRoots = [...OWN_PROCESSES, ...LIGHT].map((root) => staticClosure([root], getModuleInfo));
      const kernel = staticClosure([KERNEL], getModuleInfo);
      const chunkOfRoots = new Map();
      for (const module of staticClosure([HOST_LIBRARY], getModuleInfo)) {
        if (chunkOf.has(module) || !kernel.has(module)) continue;
        const roots = lightRoots.map((closure) => (closure.has(module) ? '1' : '0')).join('');
        if (!roots.includes('1')) chunkOf.set(module, 'engine');
        else {
          if (!chunkOfRoots.has(roots)) chunkOfRoots.set(roots, basename(module, '.js'));
          chunkOf.set(module, chunkOfRoots.get(roots));
        }
      }
    }
    return chunkOf.get(id);
  };
}
