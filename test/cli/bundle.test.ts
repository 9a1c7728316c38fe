/**
 * The parts of `wfcli bundle` that need no build (cli/bundle/): the manifest
 * (version 2 written and read, version 1 read as version 2, anything else
 * refused), how imports are classified, and the needs found in a payload.
 */
import { describe, expect, it } from 'vitest';
import { parseAst } from 'rollup/parseAst';
import { classifyImport, inNodeModules, packageName } from '../../cli/bundle/imports.js';
import { checkManifest, parseManifest, type BundleManifest } from '../../cli/bundle/manifest.js';
import { findNeeds } from '../../cli/bundle/needs.js';
import { main } from '../../cli/main.js';
import { captureIo } from './cli-io.js';
import { thrownBy } from '../support/engine-harness.js';

const SHA = 'a'.repeat(64);
const V2: BundleManifest = {
  version: 2,
  command: 'brief',
  workflow: 'brief',
  source: { module: 'file:///ext/index.js', export: 'default' },
  bundler: { name: 'rollup', version: '4.67.4' },
  engine: { name: 'pi-extensible-workflows', version: '0.1.0' },
  dependencies: ['pathe'],
  payload: { path: 'payload/extension.mjs', sha256: SHA, bytes: 10 },
  aliases: ['fast'],
  tools: ['read'],
  commands: ['git'],
  environment: ['TOKEN_NAME'],
};

describe('the bundle manifest', () => {
  it('reads version 2 as written', () => {
    expect(checkManifest(V2)).toEqual(V2);
    expect(parseManifest(JSON.parse(JSON.stringify(V2)), 'm.json')).toEqual(V2);
  });

  it('reads version 1 (command, workflow, payload, sha256) as version 2 with nothing recorded about the build or the needs', () => {
    const v1 = { version: 1, command: 'old', workflow: 'oldFlow', payload: 'payload/extension.mjs', sha256: SHA };
    expect(parseManifest(v1, 'm.json')).toEqual({
      version: 2,
      command: 'old',
      workflow: 'oldFlow',
      source: { module: 'payload/extension.mjs', export: 'default' },
      bundler: { name: 'rollup', version: 'unknown' },
      engine: { name: 'pi-extensible-workflows', version: 'unknown' },
      dependencies: [],
      payload: { path: 'payload/extension.mjs', sha256: SHA },
      aliases: [],
      tools: [],
      commands: [],
      environment: [],
    });
  });

  it('refuses other versions, unknown keys, a payload elsewhere and a bad hash with INVALID_METADATA naming the problem', () => {
    expect(thrownBy(() => parseManifest({ version: 3 }, 'm.json'))).toMatchObject({ code: 'INVALID_METADATA', message: 'm.json has bundle manifest version 3; this launcher reads versions 1 and 2' });
    expect(thrownBy(() => parseManifest(null, 'm.json'))).toMatchObject({ code: 'INVALID_METADATA', message: 'm.json has bundle manifest version null; this launcher reads versions 1 and 2' });
    expect(thrownBy(() => parseManifest({ ...V2, extra: 1 }, 'm.json'))).toMatchObject({ code: 'INVALID_METADATA', message: 'm.json is not a valid version 2 bundle manifest: (root) has unknown key "extra"' });
    expect(thrownBy(() => parseManifest({ ...V2, payload: { ...V2.payload, path: '../x.mjs' } }, 'm.json'))).toMatchObject({ message: expect.stringContaining('/payload/path must be equal to constant') as unknown });
    expect(thrownBy(() => parseManifest({ version: 1, command: 'a/b', workflow: 'w', payload: 'payload/extension.mjs', sha256: 'nope' }, 'm.json'))).toMatchObject({
      message: 'm.json is not a valid version 1 bundle manifest: /command must match pattern "^[A-Za-z0-9][A-Za-z0-9._-]*$"; /sha256 must match pattern "^[0-9a-f]{64}$"',
    });
  });
});

describe('bundle imports', () => {
  const declared = new Set(['pathe', '@scope/lib']);
  it.each([
    ['./lib.js', false, 'relative'],
    ['node:fs', false, 'builtin'],
    ['fs/promises', false, 'builtin'],
    ['pi-extensible-workflows', false, 'engine'],
    ['pi-extensible-workflows/kernel', false, 'engine'],
    ['@earendil-works/pi-coding-agent', false, 'host'],
    ['@earendil-works/pi-ai', true, 'host'],
    ['pathe', false, 'declared'],
    ['pathe/utils', false, 'declared'],
    ['@scope/lib/deep', false, 'declared'],
    ['lodash', false, 'undeclared'],
    ['lodash', true, 'declared'],
  ] as const)('%s (from a dependency: %s) is %s', (specifier, fromDependency, kind) => {
    expect(classifyImport(specifier, declared, fromDependency)).toBe(kind);
  });

  it('tells module paths in installed packages, relative or absolute', () => {
    expect([inNodeModules('node_modules/a/x.js'), inNodeModules('../../node_modules/a/x.js'), inNodeModules('/h/node_modules/a/x.js'), inNodeModules('src/x.js'), inNodeModules('my_node_modules/x.js')]).toEqual([true, true, true, false, false]);
  });

  it('names the package of a specifier', () => {
    expect([packageName('a/b/c'), packageName('@s/p/x'), packageName('./x'), packageName('/abs'), packageName('file:///x')]).toEqual(['a', '@s/p', undefined, undefined, undefined]);
  });
});

describe('the needs of a payload', () => {
  it('finds literal aliases, tools, shell programs and environment variables, and nothing computed', () => {
    const code = `
      const env = process.env.API_HOST ?? process.env['REGION'];
      const dynamic = process.env[name];
      await context.agent('x', { model: 'fast', tools: ['read', 'bash', '-write', 'grep*'] });
      await context.agent('y', { model: 'openai/gpt-5', tools: list });
      await context.agent('z', { 'model': 'deep:high' });
      await context.shell('git status --short');
      await shell(\`rg -n \${pattern}\`);
      await context.shell(command);
    `;
    expect(findNeeds(parseAst(`async function f(context, shell, name, list, pattern, command) {${code}}`))).toEqual({
      aliases: ['deep', 'fast'],
      tools: ['bash', 'read'],
      commands: ['git', 'rg'],
      environment: ['API_HOST', 'REGION'],
    });
  });
});

describe('wfcli bundle usage', () => {
  it('is a usage error without a workflow, with an extra argument, or with a bad command name, before Pi starts', async () => {
    const cases: [readonly string[], RegExp][] = [
      [['bundle'], /^wfcli bundle: missing argument/],
      [['bundle', 'a', 'b'], /^wfcli bundle: unexpected argument "b"\n/],
      [['bundle', 'brief', '--name', '../evil'], /^wfcli bundle: "..\/evil" cannot be a command name/],
      [['bundle', 'brief', '--frob'], /^wfcli bundle: Unknown option '--frob'/],
    ];
    for (const [argv, message] of cases) {
      const io = captureIo();
      expect(await main(argv, io), argv.join(' ')).toBe(2);
      expect(io.err(), argv.join(' ')).toMatch(message);
    }
    const help = captureIo();
    expect(await main(['help', 'bundle'], help)).toBe(0);
    expect(help.out()).toMatch(/^usage:\n {2}wfcli bundle <workflow-name> \[--name <command>\] \[--output <directory>\] \[--force\]/);
  });
});
