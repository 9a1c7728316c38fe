// Rewrites of rollup.config.mjs's output chunks that make them cheaper for Node to load.

// Node reads a module holding any non-ASCII character as UTF-16 text, which
// costs decoding it and a slower scan (measured: about 4 M instructions for the
// run readers' chunk, whose three such characters are `…` and `·`); as an
// escape the same character costs nothing. Escapes mean the same in strings,
// templates, regular expressions and identifiers, and are plain text in
// comments; only an escaped non-ASCII character (`\é`) would change, so it
// stops the build.
export const asciiOutput = {
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
export const fsWithoutFacade = {
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
