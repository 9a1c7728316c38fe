// Bundles the tsc output in build/ into one ESM entry per loadable part, so a
// host can load a chosen set and Pi's package filters can leave optional
// entries out. Shared code lands in dist/chunks/ and is loaded once per process.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { builtinModules } from 'node:module';
import nodeResolve from '@rollup/plugin-node-resolve';
import pkg from './package.json' with { type: 'json' };
import { libraryName, writePiEntries } from './scripts/pi-entries.mjs';
import { asciiOutput, fsWithoutFacade } from './scripts/output-rewrites.mjs';
import { startupChunks } from './scripts/startup-chunks.mjs';

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
    manualChunks: startupChunks(),
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
