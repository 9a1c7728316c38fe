/**
 * Builds a bundle's payload with rollup's JavaScript API (docs/bundles.md):
 * the defining extension module and its import graph in one ES module whose
 * only export is the module's default factory, tree-shaken. Declared
 * `dependencies` (and what they import) are inlined through
 * @rollup/plugin-node-resolve; Node builtins and this package stay external;
 * host (Pi) packages, undeclared packages and dynamic imports of a computed
 * specifier are collected over the whole graph and refused together, before
 * any output exists.
 */
import { statSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { VERSION, rollup, type Plugin, type RollupBuild, type RollupLog } from 'rollup';
import { parseAst } from 'rollup/parseAst';
import { WorkflowError, messageOf } from '../../kernel/index.js';
import { classifyImport, inNodeModules, packageName } from './imports.js';
import type { BundleNeeds } from './manifest.js';
import { findNeeds } from './needs.js';

/** A virtual entry re-exporting only the default factory, so the module's other exports are shaken off too. */
const ENTRY = '\0wfcli-bundle-entry';

export interface PayloadInput {
  /** The defining extension module (a file). */
  readonly sourcePath: string;
  /** The directory of its package (its nearest package.json): imports from below its node_modules come with a dependency. */
  readonly packageRoot: string;
  /** The extension's declared `dependencies`. */
  readonly dependencies: readonly string[];
  /** Set when the module is the core package's own (core-export.ts): the payload re-exports it by this specifier, external. */
  readonly coreModule?: string;
  readonly onWarning?: (message: string) => void;
}

export interface BuiltPayload {
  readonly code: string;
  readonly rollupVersion: string;
  readonly needs: BundleNeeds;
  /** The files of the module graph rollup read, and their total size: what the payload replaces. */
  readonly graphFiles: readonly string[];
  readonly graphBytes: number;
}

interface Problems {
  readonly undeclared: Map<string, string>;
  readonly host: Map<string, string>;
  readonly dynamic: string[];
}

/** Warnings that say nothing wrong about a bundle. */
const QUIET = new Set(['CIRCULAR_DEPENDENCY', 'THIS_IS_UNDEFINED']);

/**
 * Whether a module is code of an installed package rather than the
 * extension's own: below a node_modules of the extension's package, or
 * outside the package in a node_modules (a hoisted dependency of an
 * extension that is itself installed under node_modules).
 */
export function dependencyModule(packageRoot: string, id: string): boolean {
  const path = relative(packageRoot, id);
  return path.startsWith('..') || isAbsolute(path) ? inNodeModules(id) : inNodeModules(path);
}

function importsPlugin(input: PayloadInput, problems: Problems): Plugin {
  const declared = new Set(input.dependencies);
  const shown = (id: string | undefined): string => (id === undefined || id === ENTRY ? 'the entry' : relative(input.packageRoot, id));
  return {
    name: 'wfcli-bundle-imports',
    resolveId: {
      order: 'pre',
      handler(source, importer) {
        if (source === ENTRY) return ENTRY;
        const fromDependency = importer !== undefined && importer !== ENTRY && dependencyModule(input.packageRoot, importer);
        const kind = classifyImport(source, declared, fromDependency);
        if (kind === 'relative' || kind === 'declared') return null;
        const name = packageName(source) ?? source;
        if (kind === 'host') problems.host.set(name, shown(importer));
        if (kind === 'undeclared') problems.undeclared.set(name, shown(importer));
        // External, so the build goes on and every problem of the graph is found.
        return { id: source, external: true };
      },
    },
    resolveDynamicImport(specifier, importer) {
      if (typeof specifier === 'string') return null;
      problems.dynamic.push(shown(importer));
      return false;
    },
    load(id) {
      return id === ENTRY ? `export { default } from ${JSON.stringify(input.coreModule ?? input.sourcePath)};\n` : null;
    },
  };
}

function problemError(problems: Problems, input: PayloadInput): WorkflowError | undefined {
  const parts: string[] = [];
  const list = (map: Map<string, string>): string => [...map].map(([name, by]) => `"${name}" (imported by ${by})`).join(', ');
  if (problems.undeclared.size > 0) parts.push(`undeclared packages ${list(problems.undeclared)}: add them to the registration's \`dependencies\` to inline them`);
  if (problems.host.size > 0) parts.push(`host-application packages ${list(problems.host)}: Pi's packages cannot be bundled; a bundle runs on the installed Pi`);
  if (problems.dynamic.length > 0) parts.push(`dynamic imports of a computed specifier in ${[...new Set(problems.dynamic)].join(', ')}: only import("literal") can be bundled`);
  if (parts.length === 0) return undefined;
  return new WorkflowError('INVALID_METADATA', `Cannot bundle ${input.sourcePath}: ${parts.join('; ')}`, {
    source: input.sourcePath,
    undeclared: [...problems.undeclared.keys()],
    hostPackages: [...problems.host.keys()],
    dynamicImports: [...new Set(problems.dynamic)],
  });
}

function graphSize(build: RollupBuild): { files: string[]; bytes: number } {
  const files = build.watchFiles.filter((file) => !file.startsWith('\0')).sort();
  return { files, bytes: files.reduce((sum, file) => sum + statSync(file).size, 0) };
}

export async function buildPayload(input: PayloadInput): Promise<BuiltPayload> {
  const problems: Problems = { undeclared: new Map(), host: new Map(), dynamic: [] };
  const onLog = (level: string, log: RollupLog): void => {
    if (level === 'warn' && !QUIET.has(log.code ?? '')) input.onWarning?.(`bundling: ${log.message}`);
  };
  let build: RollupBuild;
  try {
    build = await rollup({
      input: ENTRY,
      plugins: [importsPlugin(input, problems), nodeResolve({ rootDir: input.packageRoot, exportConditions: ['node', 'import', 'default'], preferBuiltins: true })],
      onLog,
      treeshake: true,
    });
  } catch (error) {
    throw problemError(problems, input) ?? buildError(input, error);
  }
  try {
    const refused = problemError(problems, input);
    if (refused !== undefined) throw refused;
    const { output } = await build.generate({ format: 'es', inlineDynamicImports: true, sourcemap: false });
    const [chunk] = output;
    const graph = graphSize(build);
    return { code: chunk.code, rollupVersion: VERSION, needs: findNeeds(parseAst(chunk.code)), graphFiles: graph.files, graphBytes: graph.bytes };
  } catch (error) {
    throw error instanceof WorkflowError ? error : buildError(input, error);
  } finally {
    await build.close();
  }
}

function buildError(input: PayloadInput, error: unknown): WorkflowError {
  const message = messageOf(error);
  // Without a CommonJS plugin a CommonJS package has no ES exports: say so.
  const hint = /is not exported by .*node_modules/.test(message) ? ' (a CommonJS package cannot be inlined: depend on an ES module build of it)' : '';
  return new WorkflowError('INVALID_METADATA', `Cannot bundle ${input.sourcePath}: ${message}${hint}`, { source: input.sourcePath }, { cause: error });
}
