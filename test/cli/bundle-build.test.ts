/**
 * Building payloads with rollup (cli/bundle/build.ts) from extension
 * packages on disk, and writing bundle directories (cli/bundle/output.ts):
 * declared packages and what they import are inlined and tree-shaken,
 * builtins and this package stay external, literal dynamic imports are
 * inlined; undeclared packages, Pi's packages and computed dynamic imports
 * are refused together; CommonJS packages are refused with a hint; the
 * directory appears whole or not at all.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildPayload, dependencyModule } from '../../cli/bundle/build.js';
import { writeBundleDirectory } from '../../cli/bundle/output.js';
import { thrownBy } from '../support/engine-harness.js';

function write(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

const esmPackage = (name: string, index: string): Record<string, string> => ({
  [`node_modules/${name}/package.json`]: JSON.stringify({ name, version: '1.0.0', type: 'module', exports: './index.js' }),
  [`node_modules/${name}/index.js`]: index,
});

async function rejection(promise: Promise<unknown>): Promise<{ code?: string; message: string; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('expected a rejection');
}

describe('building a payload', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'wfcli-bundle-build-'));
    write(root, {
      'package.json': JSON.stringify({ name: 'ext', type: 'module' }),
      ...esmPackage('dep-esm', "import { inner } from 'dep-inner';\nexport const used = () => `USED_DEP ${inner()}`;\nexport const unused = () => 'UNUSED_DEP';\n"),
      ...esmPackage('dep-inner', "export const inner = () => 'INNER';\nexport const notInner = () => 'UNUSED_INNER';\n"),
      'node_modules/dep-cjs/package.json': JSON.stringify({ name: 'dep-cjs', version: '1.0.0', main: 'index.js' }),
      'node_modules/dep-cjs/index.js': "module.exports = { value: 'CJS' };\n",
      'lib.js': "export const helper = () => 'HELPER';\nexport const spare = () => 'UNUSED_LIB';\n",
      'later.js': "export const later = () => 'LATER';\n",
    });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const entry = (source: string): string => {
    writeFileSync(join(root, 'index.js'), source);
    return join(root, 'index.js');
  };

  it('inlines declared packages (and their own imports), keeps builtins and the engine external, shakes unused exports off', async () => {
    const sourcePath = entry(`import { registerWorkflowExtension } from 'pi-extensible-workflows';
import { join } from 'node:path';
import { used } from 'dep-esm';
import { helper } from './lib.js';
export const entryOnly = () => 'UNUSED_ENTRY';
export default function () {
  registerWorkflowExtension({ source: import.meta.url, run: async () => [used(), helper(), join('a', 'b'), (await import('./later.js')).later(), process.env.SECRET_NAME] });
}
`);
    const built = await buildPayload({ sourcePath, packageRoot: root, dependencies: ['dep-esm'] });
    expect(built.code).toMatch(/USED_DEP/);
    expect(built.code).toMatch(/INNER/);
    expect(built.code).toMatch(/HELPER/);
    expect(built.code).toMatch(/LATER/);
    expect(built.code).not.toMatch(/UNUSED_/);
    expect(built.code).toContain('import.meta.url');
    expect([...built.code.matchAll(/^import .* from '([^']+)';$/gm)].map((match) => match[1]).sort()).toEqual(['node:path', 'pi-extensible-workflows']);
    expect(built.code).toMatch(/^export \{ \w+ as default \};$/m);
    expect(built.graphFiles.map((file) => file.slice(root.length + 1))).toEqual(['index.js', 'later.js', 'lib.js', 'node_modules/dep-esm/index.js', 'node_modules/dep-inner/index.js']);
    expect(Buffer.byteLength(built.code)).toBeLessThan(built.graphBytes);
    expect(built.needs).toEqual({ aliases: [], tools: [], commands: [], environment: ['SECRET_NAME'] });
    expect(built.rollupVersion).toMatch(/^4\.\d+\.\d+$/);
  });

  it('refuses undeclared packages, Pi packages and computed dynamic imports together, naming each', async () => {
    const sourcePath = entry(`import { used } from 'dep-esm';
import { VERSION } from '@earendil-works/pi-coding-agent';
export default function (name) { return [used(), VERSION, import(name)]; }
`);
    const error = await rejection(buildPayload({ sourcePath, packageRoot: root, dependencies: [] }));
    expect(error).toMatchObject({
      code: 'INVALID_METADATA',
      details: { undeclared: ['dep-esm'], hostPackages: ['@earendil-works/pi-coding-agent'], dynamicImports: ['index.js'] },
    });
    expect(error.message).toBe(
      `Cannot bundle ${sourcePath}: undeclared packages "dep-esm" (imported by index.js): add them to the registration's \`dependencies\` to inline them; ` +
        `host-application packages "@earendil-works/pi-coding-agent" (imported by index.js): Pi's packages cannot be bundled; a bundle runs on the installed Pi; ` +
        'dynamic imports of a computed specifier in index.js: only import("literal") can be bundled',
    );
  });

  it('refuses a declared Pi package too: the host is never bundled', async () => {
    const sourcePath = entry("import { VERSION } from '@earendil-works/pi-ai';\nexport default () => VERSION;\n");
    expect(await rejection(buildPayload({ sourcePath, packageRoot: root, dependencies: ['@earendil-works/pi-ai'] }))).toMatchObject({ details: { hostPackages: ['@earendil-works/pi-ai'] } });
  });

  it('refuses a CommonJS package with a hint, and a missing relative module', async () => {
    const cjs = await rejection(buildPayload({ sourcePath: entry("import { value } from 'dep-cjs';\nexport default () => value;\n"), packageRoot: root, dependencies: ['dep-cjs'] }));
    expect(cjs).toMatchObject({ code: 'INVALID_METADATA' });
    expect(cjs.message).toMatch(/is not exported by .*dep-cjs.*\(a CommonJS package cannot be inlined: depend on an ES module build of it\)$/);
    const missing = await rejection(buildPayload({ sourcePath: entry("import { x } from './nowhere.js';\nexport default () => x;\n"), packageRoot: root, dependencies: [] }));
    expect(missing).toMatchObject({ code: 'INVALID_METADATA' });
    expect(missing.message).toMatch(/^Cannot bundle .*index\.js: Could not resolve "\.\/nowhere\.js"/);
  });
});

describe('dependency modules', () => {
  it('are below the extension package\'s node_modules, or in a node_modules outside it (hoisted); the extension\'s own files are not', () => {
    const root = '/npm/node_modules/my-ext';
    expect(dependencyModule(root, '/npm/node_modules/my-ext/node_modules/dep/index.js')).toBe(true);
    expect(dependencyModule(root, '/npm/node_modules/dep/index.js')).toBe(true);
    expect(dependencyModule(root, '/npm/node_modules/my-ext/lib/x.js')).toBe(false);
    expect(dependencyModule('/src/ext', '/src/shared/x.js')).toBe(false);
  });
});

describe('writing a bundle directory', () => {
  let parent: string;
  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'wfcli-bundle-out-'));
  });
  afterEach(() => rmSync(parent, { recursive: true, force: true }));
  const files = (text: string) => [
    { path: 'cmd', content: text, mode: 0o755 },
    { path: 'payload/extension.mjs', content: `export default () => ${JSON.stringify(text)};\n`, mode: 0o644 },
  ];

  it('appears whole; an existing output is kept without force and replaced whole with it; no temp directory stays', () => {
    const output = join(parent, 'bundle');
    writeBundleDirectory(output, files('one'), false);
    expect(readFileSync(join(output, 'cmd'), 'utf8')).toBe('one');
    expect(thrownBy(() => writeBundleDirectory(output, files('two'), false))).toMatchObject({ code: 'INVALID_METADATA', message: `${output} exists; pass --force to replace it` });
    expect(readFileSync(join(output, 'cmd'), 'utf8')).toBe('one');
    writeFileSync(join(output, 'stale'), 'x');
    writeBundleDirectory(output, files('two'), true);
    expect(readdirSync(output).sort()).toEqual(['cmd', 'payload']);
    expect(readFileSync(join(output, 'payload', 'extension.mjs'), 'utf8')).toContain('"two"');
    expect(readdirSync(parent)).toEqual(['bundle']);
  });

  it('leaves nothing when a write fails, and the old output untouched', () => {
    const output = join(parent, 'bundle');
    writeBundleDirectory(output, files('one'), false);
    // "cmd" is a file, so "cmd/x" cannot be written.
    const broken = [...files('two'), { path: 'cmd/x', content: '', mode: 0o644 }];
    expect(() => writeBundleDirectory(output, broken, true)).toThrow(/ENOTDIR|EEXIST/);
    expect(() => writeBundleDirectory(join(parent, 'fresh'), broken, false)).toThrow(/ENOTDIR|EEXIST/);
    expect(readdirSync(parent)).toEqual(['bundle']);
    expect(readFileSync(join(output, 'cmd'), 'utf8')).toBe('one');
  });
});
