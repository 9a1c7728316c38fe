// Bundles the tsc output in build/ into one ESM entry per loadable part, so a
// host can load a chosen set and Pi's package filters can leave optional
// entries out. Shared code lands in dist/chunks/ and is loaded once per process.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { builtinModules } from 'node:module';
import nodeResolve from '@rollup/plugin-node-resolve';
import pkg from './package.json' with { type: 'json' };
import { libraryName, writePiEntries } from './scripts/pi-entries.mjs';

const fixed = {
  'src/index': 'build/src/index.js',
  'kernel/index': 'build/kernel/index.js',
  'starter/index': 'build/starter/index.js',
  'subagents/index': 'build/plugins/subagents/index.js',
  'trajectory/index': 'build/plugins/trajectory/index.js',
  'roles/index': 'build/roles/index.js',
  'relay/index': 'build/relay/index.js',
  'relay/cli': 'build/relay/cli.js',
  'cli/wfcli': 'build/cli/wfcli.js',
  // A portable bundle's launcher.mjs imports it from the installed package (docs/bundles.md).
  'cli/bundle-launcher': 'build/cli/bundle/launcher.js',
  'kernel/sandbox/worker': 'build/kernel/sandbox/worker.js',
  // The preflight of a large or deeply nested script runs in a process of its own (kernel/preflight/isolated.ts).
  'kernel/preflight/process': 'build/kernel/preflight/process.js',
};

const input = Object.fromEntries(Object.entries(fixed).filter(([, file]) => existsSync(file)));
// Every other plugin folder is an entry of its own: dist/plugins/<name>/index.js.
// The host entry imports no plugin, so a plugin's own code lands in its entry
// and only code shared with other entries goes to dist/chunks/.
for (const name of existsSync('build/plugins') ? readdirSync('build/plugins') : []) {
  const file = `build/plugins/${name}/index.js`;
  if (existsSync(file) && !Object.values(input).includes(file)) input[`plugins/${name}/index`] = file;
}

// Each Pi entry (package.json `pi.extensions`) is a lazy module holding its
// feature's recorded registrations; the feature is dist/<name>/library.js,
// loaded on first use (scripts/pi-entries.mjs, lib/pi-entry/lazy.ts).
const piEntryNames = pkg.pi.extensions.map((path) => path.replace(/^\.\/dist\//, '').replace(/\.js$/, ''));
const features = Object.fromEntries(piEntryNames.filter((name) => name in input).map((name) => [name, input[name]]));
for (const name of Object.keys(features)) delete input[name];
Object.assign(input, await writePiEntries(features));
// A plugin folder Pi does not load (the host plugin) is a library module too, so `./plugins/*` is one shape.
for (const name of Object.keys(input).filter((name) => /^plugins\/[^/]+\/index$/.test(name) && !(name in features))) {
  input[libraryName(name)] = input[name];
  delete input[name];
}

// dist/plugins.json: the declaration of every plugin entry (an entry whose
// default export carries `plugin`, see workflowPluginEntry), so the host can
// name the entry to enable when a script uses what a left-out plugin provides.
const { declarationOf, checkDeclaration } = await import('./build/kernel/plugin-set.js');
const { PLUGIN_MANIFEST_FORMAT } = await import('./build/plugins/host/manifest.js');
const manifestRows = [];
for (const [name, file] of Object.entries(features)) {
  const plugin = (await import(pathToFileURL(resolve(file)).href)).default?.plugin;
  if (plugin === undefined) continue;
  const entry = `dist/${name}.js`;
  manifestRows.push(checkDeclaration({ ...declarationOf(plugin), entry }, entry));
}
manifestRows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
const pluginManifest = {
  name: 'plugin-manifest',
  generateBundle() {
    this.emitFile({ type: 'asset', fileName: 'plugins.json', source: `${JSON.stringify({ format: PLUGIN_MANIFEST_FORMAT, plugins: manifestRows }, null, 2)}\n` });
  },
};

const dependencies = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];
const external = (id) =>
  id.startsWith('node:') ||
  builtinModules.includes(id) ||
  dependencies.some((name) => id === name || id.startsWith(`${name}/`));

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
const CLI_FOLDER = `${resolve('build/cli')}/`;
const READER_COMMANDS = ['build/cli/list.js', 'build/cli/status.js'].map((file) => resolve(file));
const DISPATCHER = resolve('build/cli/wfcli.js');
const BEFORE_COMMAND = resolve('build/cli/compile-cache.js');
const OWN_PROCESSES = ['build/kernel/sandbox/worker.js', 'build/kernel/preflight/process.js'].map((file) => resolve(file));
let chunkOf;
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
function manualChunks(id, { getModuleInfo }) {
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
    for (const module of readers) {
      if (!chunkOf.has(module)) chunkOf.set(module, ownProcesses.has(module) ? basename(module, '.js') : 'run-readers');
    }
  }
  return chunkOf.get(id);
}

// Node reads a module holding any non-ASCII character as UTF-16 text, which
// costs decoding it and a slower scan (measured: about 4 M instructions for the
// run readers' chunk, whose three such characters are `…` and `·`); as an
// escape the same character costs nothing. Escapes mean the same in strings,
// templates, regular expressions and identifiers, and are plain text in
// comments; only an escaped non-ASCII character (`\é`) would change, so it
// stops the build.
const asciiOutput = {
  name: 'ascii-output',
  renderChunk(code, chunk) {
    if (!/[^\x00-\x7f]/.test(code)) return null;
    if (/\\[^\x00-\x7f]/.test(code)) throw new Error(`${chunk.fileName}: a backslash before a non-ASCII character, which escaping would change`);
    return { code: code.replace(/[^\x00-\x7f]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`), map: null };
  },
};

// Node builds an ES module facade of node:fs the first time a module imports
// it, reading every export, and so loads its lazy ones: the promises API and
// the file streams (measured: 5 M instructions, about 2 ms of every `wfcli`
// command). process.getBuiltinModule hands the same object over for nothing
// (on a Node without it, which wfcli refuses with a message that must still
// print, require does). Only import declarations change (found by parsing:
// code in a string, such as a bundle's launcher, stays as it is); their
// bindings become constants bound when the chunk starts, before any of its
// code runs; a chunk in an import cycle could call into another before that,
// so a cycle through one stops the build.
const fsWithoutFacade = {
  name: 'fs-without-facade',
  renderChunk(code, chunk) {
    const imports = this.parse(code).body.filter((node) => node.type === 'ImportDeclaration' && node.source.value === 'node:fs');
    if (imports.length === 0) return null;
    const binding = (specifier) => {
      if (specifier.type === 'ImportDefaultSpecifier') return { whole: specifier.local.name };
      if (specifier.type === 'ImportSpecifier' && specifier.imported.type === 'Identifier') return { named: specifier.imported.name === specifier.local.name ? specifier.local.name : `${specifier.imported.name}: ${specifier.local.name}` };
      throw new Error(`${chunk.fileName}: an import of node:fs that fs-without-facade does not rewrite (${code.slice(specifier.start, specifier.end)})`);
    };
    let rewritten = '';
    let at = 0;
    imports.forEach((node, index) => {
      const bindings = node.specifiers.map(binding);
      const named = bindings.flatMap((entry) => (entry.named === undefined ? [] : [entry.named]));
      const lines = [
        ...(index === 0 ? ["import { createRequire as __nodeRequire } from 'node:module';", "const __nodeFs = process.getBuiltinModule?.('node:fs') ?? __nodeRequire(import.meta.url)('node:fs');"] : []),
        ...bindings.flatMap((entry) => (entry.whole === undefined ? [] : [`const ${entry.whole} = __nodeFs;`])),
        ...(named.length === 0 ? [] : [`const { ${named.join(', ')} } = __nodeFs;`]),
      ];
      rewritten += `${code.slice(at, node.start)}${lines.join('\n')}`;
      at = node.end;
    });
    return { code: rewritten + code.slice(at), map: null };
  },
  generateBundle(_options, bundle) {
    const chunks = Object.values(bundle).filter((file) => file.type === 'chunk');
    const importsOf = new Map(chunks.map((file) => [file.fileName, file.imports]));
    for (const file of chunks.filter((candidate) => candidate.code.includes('const __nodeFs = '))) {
      const seen = new Set();
      const reaches = (name) => (importsOf.get(name) ?? []).some((next) => next === file.fileName || (!seen.has(next) && seen.add(next) && reaches(next)));
      if (reaches(file.fileName)) this.error(`${file.fileName} imports node:fs as a constant and is in an import cycle, where code could run before it is bound`);
    }
  },
};

const main = {
  input,
  external,
  // Resolves only our own files; every package dependency stays an import.
  plugins: [pluginManifest, nodeResolve({ preferBuiltins: true, resolveOnly: (id) => !external(id) }), asciiOutput, fsWithoutFacade],
  output: {
    dir: 'dist',
    format: 'es',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    // Each module imports only what it uses: Pi's loader resolves every import of an entry it
    // transpiles (one needing Pi's SDK) on its own, so hoisted transitive imports cost it time.
    hoistTransitiveImports: false,
    manualChunks,
    banner: (chunk) => (chunk.fileName === 'cli/wfcli.js' || chunk.fileName === 'relay/cli.js' ? '#!/usr/bin/env node' : ''),
  },
};

// The share page's browser module: one self-contained file, never split into
// chunks a browser could not fetch.
const shareApp = {
  input: 'build/relay/share/app.js',
  output: { file: 'dist/relay/share/app.js', format: 'es' },
};

// The trajectory viewer's browser app: one self-contained file the viewer
// serves as /<token>/app.js and a report inlines (lib/trajectory/page.ts,
// report.ts). Its Markdown renderer and sanitizer (marked, DOMPurify) are
// bundled in, so neither page ever loads code from elsewhere.
const trajectoryApp = {
  input: 'build/plugins/trajectory/web/app.js',
  plugins: [nodeResolve({ browser: true })],
  onwarn(warning, warn) {
    if (warning.code === 'UNRESOLVED_IMPORT') throw new Error(`dist/trajectory/app.js: ${warning.message}`);
    warn(warning);
  },
  output: { file: 'dist/trajectory/app.js', format: 'es' },
};

// The edge worker for wrangler (wrangler.toml `main`): one ES module with the
// share app embedded as a string, since a worker cannot read files. Built after
// shareApp, whose output it reads.
const relayWorker = {
  input: 'build/relay/worker/worker.js',
  plugins: [
    {
      name: 'embed-share-app',
      load: (id) =>
        id === resolve('build/relay/worker/share-app.js') && existsSync(shareApp.output.file)
          ? `export const SHARE_APP_SCRIPT = ${JSON.stringify(readFileSync(shareApp.output.file, 'utf8'))};`
          : null,
    },
  ],
  onwarn(warning, warn) {
    if (warning.code === 'UNRESOLVED_IMPORT') throw new Error(`dist/relay/worker.js: ${warning.message}`);
    warn(warning);
  },
  output: { file: 'dist/relay/worker.js', format: 'es' },
};

// The CLI package's `wfcli` (cli-package/, packed on its own): one file that
// finds the copy of this package Pi installed and runs its dist/cli/wfcli.js.
const cliPackage = {
  input: 'build/cli-package/wfcli.js',
  external: (id) => id.startsWith('node:'),
  output: { file: 'cli-package/bin/wfcli.js', format: 'es', banner: '#!/usr/bin/env node' },
};

export default [main, ...(existsSync(cliPackage.input) ? [cliPackage] : []), ...(existsSync(shareApp.input) ? [shareApp] : []), ...(existsSync(trajectoryApp.input) ? [trajectoryApp] : []), ...(existsSync(relayWorker.input) ? [relayWorker] : [])];
