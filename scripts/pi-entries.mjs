// The lazy Pi entries (lib/pi-entry/lazy.ts), written at build time for
// rollup.config.mjs. Each Pi entry of package.json `pi.extensions`
// (dist/<name>/index.js) becomes a small module holding its feature's
// manifest, recorded by running the feature's factory against a recording API
// (lib/pi-entry/record.ts); the feature itself is bundled as
// dist/<name>/library.js, which the entry imports on first use and which the
// package's exports map points to.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The library module name of a Pi entry name: `plugins/budgets/index` → `plugins/budgets/library`. */
export function libraryName(entryName) {
  return entryName.replace(/\/index$/, '/library');
}

function importPath(from, to) {
  const path = relative(dirname(from), to).split('\\').join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

/**
 * `entries`: Pi entry name → the build file of its feature, the host entry
 * first. Returns the
 * rollup inputs: each entry name → its written lazy module, each library
 * name → the feature. Settings are read from an empty agent dir while
 * recording, so the manifests hold the defaults (a setting that changes a
 * registration applies once the feature loads and registers for real).
 */
export async function writePiEntries(entries, outDir = 'build/pi-entries') {
  const { recordEntry } = await import(pathToFileURL(resolve('build/lib/pi-entry/record.js')).href);
  const lazyModule = resolve('build/lib/pi-entry/lazy.js');
  const saved = { home: process.env.HOME, agentDir: process.env.PI_CODING_AGENT_DIR };
  const empty = mkdtempSync(join(tmpdir(), 'pi-entries-'));
  process.env.HOME = empty;
  process.env.PI_CODING_AGENT_DIR = join(empty, 'agent');
  const inputs = {};
  const [first] = Object.keys(entries);
  try {
    for (const [name, file] of Object.entries(entries)) {
      const feature = await import(pathToFileURL(resolve(file)).href);
      if (typeof feature.default !== 'function') throw new Error(`${file}: a Pi entry's default export must be its extension factory`);
      const loadWhenEnv = feature.PI_ENTRY_LOAD_WHEN_ENV;
      const loadWhenSetting = feature.PI_ENTRY_LOAD_WHEN_SETTING;
      const manifest =
        loadWhenSetting !== undefined
          ? { format: 1, calls: [], loadWhenSetting }
          : loadWhenEnv === undefined
            ? await recordEntry(feature.default, `dist/${name}.js`)
            : { format: 1, calls: [], loadWhenEnv: [...loadWhenEnv] };
      const out = resolve(outDir, `${name}.js`);
      mkdirSync(dirname(out), { recursive: true });
      // The first entry (the host's, always loaded) is evaluated by Pi's loader (jiti): Pi's packages
      // are not installed beside the package, and importing one (pi-tui: Pi has loaded it already)
      // makes the loader take this module, so its import() resolves Pi's SDK. It leaves the lazy-entry
      // code on globalThis; the other entries take it from there instead of importing it, since Pi's
      // loader (no module cache) would compile that module again for each of them (lib/pi-entry/lazy.ts).
      const provider = name === first;
      const text = JSON.stringify(JSON.stringify(manifest));
      const lines = [`// The lazy Pi entry of dist/${libraryName(name)}.js, written by scripts/pi-entries.mjs.`];
      if (provider) {
        lines.push(`import '@earendil-works/pi-tui';`, `import { lazyPiEntry, provideFeatureImporter } from '${importPath(out, lazyModule)}';`, '', 'provideFeatureImporter((url) => import(url));');
        lines.push(`export default lazyPiEntry(${text}, () => import('${importPath(out, resolve(file))}'));`, '');
      } else {
        const where = JSON.stringify(`dist/${name}.js`);
        lines.push(
          '',
          'let entry;',
          'export default (pi) => {',
          "  const lazy = globalThis[Symbol.for('pi-extensible-workflows.lazy-api')];",
          `  if (lazy === undefined) throw new Error(\`pi-extensible-workflows: \${${where}} needs the host entry dist/src/index.js, loaded before it: keep that entry in the package filters\`);`,
          `  entry ??= lazy.lazyPiEntry(${text}, () => lazy.importFeature(new URL('./library.js', import.meta.url).href));`,
          '  return entry(pi);',
          '};',
          '',
        );
      }
      writeFileSync(out, lines.join('\n'));
      inputs[name] = out;
      inputs[libraryName(name)] = file;
    }
  } finally {
    for (const [key, value] of [['HOME', saved.home], ['PI_CODING_AGENT_DIR', saved.agentDir]]) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    rmSync(empty, { recursive: true, force: true });
  }
  return inputs;
}
