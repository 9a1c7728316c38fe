// Bundles the tsc output in build/ into one ESM entry per loadable part, so a
// host can load a chosen set and Pi's package filters can leave optional
// entries out. Shared code lands in dist/chunks/ and is loaded once per process.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { builtinModules } from 'node:module';
import nodeResolve from '@rollup/plugin-node-resolve';
import pkg from './package.json' with { type: 'json' };

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
  'kernel/sandbox/worker': 'build/kernel/sandbox/worker.js',
};

const input = Object.fromEntries(Object.entries(fixed).filter(([, file]) => existsSync(file)));
// Every other plugin folder is an entry of its own: dist/plugins/<name>/index.js.
// The host entry imports plugins, so each plugin entry is a facade that
// re-exports its module: the code lands in dist/chunks/, and removing a
// plugin entry never breaks dist/src/index.js.
const FACADE = '\0plugin-entry:';
for (const name of existsSync('build/plugins') ? readdirSync('build/plugins') : []) {
  const file = `build/plugins/${name}/index.js`;
  if (existsSync(file) && !Object.values(input).includes(file)) input[`plugins/${name}/index`] = `${FACADE}${file}`;
}
const pluginFacades = {
  name: 'plugin-entry-facades',
  resolveId: (id) => (id.startsWith(FACADE) ? id : null),
  load(id) {
    if (!id.startsWith(FACADE)) return null;
    const file = JSON.stringify(resolve(id.slice(FACADE.length)));
    return `export * from ${file};\nexport { default } from ${file};\n`;
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
  plugins: [pluginFacades, nodeResolve({ preferBuiltins: true, resolveOnly: (id) => !external(id) })],
  output: {
    dir: 'dist',
    format: 'es',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    banner: (chunk) => (chunk.fileName === 'cli/wfcli.js' || chunk.fileName === 'relay/cli.js' ? '#!/usr/bin/env node' : ''),
  },
};

// The share page's browser module: one self-contained file, never split into
// chunks a browser could not fetch.
const shareApp = {
  input: 'build/relay/share/app.js',
  output: { file: 'dist/relay/share/app.js', format: 'es' },
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

export default [main, ...(existsSync(shareApp.input) ? [shareApp] : []), ...(existsSync(relayWorker.input) ? [relayWorker] : [])];
