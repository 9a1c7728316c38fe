import { describe, expect, it } from 'vitest';
import { BUILTIN_EXTENSIONS, compileSelector, evaluateSelectors, parseSelector, selectorMatches, SELECTOR_KINDS } from '../../../kernel/index.js';

const TOOLS = ['read', 'bash', 'edit', 'write', 'grep', 'find', 'ls'];
const SKILLS = ['pdf', 'pdf-forms', 'docx', 'web-search', 'web-fetch'];
const EXT_PATHS = [
  '/home/u/.pi/agent/extensions/herdr/index.ts',
  '/home/u/.pi/agent/extensions/notify.ts',
  '/work/project/.pi/extensions/lint/index.ts',
  '/work/project/tools/x/main.ts',
];
const EXTENSIONS = [...EXT_PATHS, ...BUILTIN_EXTENSIONS];

describe('parseSelector', () => {
  it('splits the leading ! only', () => {
    expect(parseSelector('read')).toEqual({ negated: false, body: 'read' });
    expect(parseSelector('!read')).toEqual({ negated: true, body: 'read' });
    expect(parseSelector('!*')).toEqual({ negated: true, body: '*' });
    expect(parseSelector('!!x')).toEqual({ negated: true, body: '!x' });
    expect(parseSelector('')).toEqual({ negated: false, body: '' });
  });
});

describe('rule 2: start enabled, declaration order, last match wins', () => {
  it.each(SELECTOR_KINDS)('an empty selector list keeps every %s candidate', (kind) => {
    const candidates = kind === 'tools' ? TOOLS : kind === 'skills' ? SKILLS : EXTENSIONS;
    expect(evaluateSelectors(candidates, [], kind)).toEqual(candidates);
  });

  it('a positive on an enabled candidate changes nothing', () => {
    expect(evaluateSelectors(TOOLS, ['read'], 'tools')).toEqual(TOOLS);
  });

  it('a negation disables exactly the matches', () => {
    expect(evaluateSelectors(TOOLS, ['!bash'], 'tools')).toEqual(TOOLS.filter((tool) => tool !== 'bash'));
    expect(evaluateSelectors(TOOLS, ['!bash', '!write'], 'tools')).toEqual(['read', 'edit', 'grep', 'find', 'ls']);
  });

  it('the last matching selector wins', () => {
    expect(evaluateSelectors(TOOLS, ['!bash', 'bash'], 'tools')).toEqual(TOOLS);
    expect(evaluateSelectors(TOOLS, ['bash', '!bash'], 'tools')).toEqual(TOOLS.filter((tool) => tool !== 'bash'));
    expect(evaluateSelectors(TOOLS, ['!bash', 'bash', '!bash'], 'tools')).not.toContain('bash');
  });

  it('non-matching selectors later in the list do not reset a match', () => {
    expect(evaluateSelectors(TOOLS, ['!bash', 'read', 'edit'], 'tools')).not.toContain('bash');
  });

  it('a later broad negation overrides an earlier positive, a later narrow positive re-enables', () => {
    expect(evaluateSelectors(TOOLS, ['read', '!*'], 'tools')).toEqual([]);
    expect(evaluateSelectors(SKILLS, ['!pdf*', 'pdf-forms'], 'skills')).toEqual(['pdf-forms', 'docx', 'web-search', 'web-fetch']);
    expect(evaluateSelectors(SKILLS, ['!pdf-forms', 'pdf*'], 'skills')).toEqual(SKILLS);
  });
});

describe('rule 3: !* clears, !* alone selects none, empty arrays contribute nothing', () => {
  it('!* followed by positives selects only those', () => {
    expect(evaluateSelectors(TOOLS, ['!*', 'read'], 'tools')).toEqual(['read']);
    expect(evaluateSelectors(TOOLS, ['!*', 'read', 'grep'], 'tools')).toEqual(['read', 'grep']);
    expect(evaluateSelectors(SKILLS, ['!*', 'web-*'], 'skills')).toEqual(['web-search', 'web-fetch']);
  });

  it.each(SELECTOR_KINDS)('!* alone selects no %s', (kind) => {
    const candidates = kind === 'tools' ? TOOLS : kind === 'skills' ? SKILLS : EXTENSIONS;
    expect(evaluateSelectors(candidates, ['!*'], kind)).toEqual([]);
  });

  it('!* then a positive then a negation narrows further', () => {
    expect(evaluateSelectors(SKILLS, ['!*', 'pdf*', '!pdf-forms'], 'skills')).toEqual(['pdf']);
  });

  it('an empty pattern matches nothing', () => {
    expect(evaluateSelectors(TOOLS, [''], 'tools')).toEqual(TOOLS);
    expect(evaluateSelectors(TOOLS, ['!'], 'tools')).toEqual(TOOLS);
    expect(evaluateSelectors(TOOLS, ['!*', ''], 'tools')).toEqual([]);
    expect(compileSelector('', 'tools')('')).toBe(false);
  });

  it('selectors on no candidates select nothing', () => {
    expect(evaluateSelectors([], ['*', 'read'], 'tools')).toEqual([]);
  });
});

describe('glob patterns (micromatch)', () => {
  it('* and ? match names', () => {
    expect(evaluateSelectors(SKILLS, ['!*', 'pdf?forms'], 'skills')).toEqual(['pdf-forms']);
    expect(evaluateSelectors(TOOLS, ['!*', '??'], 'tools')).toEqual(['ls']);
    expect(evaluateSelectors(TOOLS, ['!*', 'gre*'], 'tools')).toEqual(['grep']);
  });

  it('braces expand', () => {
    expect(evaluateSelectors(TOOLS, ['!*', '{read,grep,ls}'], 'tools')).toEqual(['read', 'grep', 'ls']);
    expect(evaluateSelectors(TOOLS, ['!{bash,write,edit}'], 'tools')).toEqual(['read', 'grep', 'find', 'ls']);
  });

  it('character classes match', () => {
    expect(evaluateSelectors(TOOLS, ['!*', '[eg]*'], 'tools')).toEqual(['edit', 'grep']);
  });

  it('patterns are case-sensitive', () => {
    expect(evaluateSelectors(TOOLS, ['!*', 'READ'], 'tools')).toEqual([]);
  });

  it('a leading ! inside the body is literal, not a second negation', () => {
    expect(evaluateSelectors(['!odd', 'even'], ['!*', '!!odd'], 'tools')).toEqual([]);
    expect(selectorMatches('!odd', '!!odd', 'tools')).toBe(true);
    expect(selectorMatches('even', '!!odd', 'tools')).toBe(false);
  });
});

describe('rule 4: each kind matches its own candidate form', () => {
  it('skills match discovered names', () => {
    expect(evaluateSelectors(SKILLS, ['!*', 'docx'], 'skills')).toEqual(['docx']);
  });

  it('tools match names', () => {
    expect(evaluateSelectors(TOOLS, ['!*', 'read', 'bash'], 'tools')).toEqual(['read', 'bash']);
  });

  it('extensions match normalized absolute paths exactly', () => {
    expect(evaluateSelectors(EXTENSIONS, ['!*', '/home/u/.pi/agent/extensions/notify.ts'], 'extensions')).toEqual(['/home/u/.pi/agent/extensions/notify.ts']);
  });

  it('extensions: **/x/** matches inside dot directories', () => {
    expect(evaluateSelectors(EXTENSIONS, ['!*', '**/herdr/**'], 'extensions')).toEqual(['/home/u/.pi/agent/extensions/herdr/index.ts']);
    expect(evaluateSelectors(EXTENSIONS, ['!*', '**/x/**'], 'extensions')).toEqual(['/work/project/tools/x/main.ts']);
  });

  it('extensions: path-prefix patterns select a tree', () => {
    expect(evaluateSelectors(EXTENSIONS, ['!/work/project/**'], 'extensions')).toEqual([
      '/home/u/.pi/agent/extensions/herdr/index.ts',
      '/home/u/.pi/agent/extensions/notify.ts',
      ...BUILTIN_EXTENSIONS,
    ]);
    expect(evaluateSelectors(EXTENSIONS, ['!*', '/home/u/.pi/agent/extensions/*.ts'], 'extensions')).toEqual(['/home/u/.pi/agent/extensions/notify.ts']);
  });

  it('extensions: * matches every path although paths contain /', () => {
    expect(evaluateSelectors(EXTENSIONS, ['!*', '*'], 'extensions')).toEqual(EXTENSIONS);
    expect(selectorMatches('/a/b/c.ts', '*', 'extensions')).toBe(true);
  });

  it('extensions: ** matches every path but no built-in', () => {
    expect(evaluateSelectors(EXTENSIONS, ['!*', '**'], 'extensions')).toEqual(EXT_PATHS);
    expect(evaluateSelectors(EXTENSIONS, ['!**'], 'extensions')).toEqual([...BUILTIN_EXTENSIONS]);
  });
});

describe('built-in extensions', () => {
  it('are matched by their exact names', () => {
    expect(evaluateSelectors(EXTENSIONS, ['!builtin:mcp'], 'extensions')).toEqual([...EXT_PATHS, 'builtin:codemode', 'builtin:tool-search']);
    expect(evaluateSelectors(EXTENSIONS, ['!*', 'builtin:codemode'], 'extensions')).toEqual(['builtin:codemode']);
  });

  it('are matched by builtin:* and builtin: braces', () => {
    expect(evaluateSelectors(EXTENSIONS, ['!builtin:*'], 'extensions')).toEqual(EXT_PATHS);
    expect(evaluateSelectors(EXTENSIONS, ['!*', 'builtin:*'], 'extensions')).toEqual([...BUILTIN_EXTENSIONS]);
    expect(evaluateSelectors(EXTENSIONS, ['!*', 'builtin:{mcp,tool-search}'], 'extensions')).toEqual(['builtin:tool-search', 'builtin:mcp']);
  });

  it('a list starting with !* drops them unless builtin:* or their names keep them', () => {
    expect(evaluateSelectors(EXTENSIONS, ['!*', '**/herdr/**'], 'extensions')).toEqual(['/home/u/.pi/agent/extensions/herdr/index.ts']);
    expect(evaluateSelectors(EXTENSIONS, ['!*', '**/herdr/**', 'builtin:*'], 'extensions')).toEqual([
      '/home/u/.pi/agent/extensions/herdr/index.ts',
      ...BUILTIN_EXTENSIONS,
    ]);
    expect(evaluateSelectors(EXTENSIONS, ['!*', '**', 'builtin:mcp'], 'extensions')).toEqual([...EXT_PATHS, 'builtin:mcp']);
  });

  it('are never matched by path patterns', () => {
    for (const pattern of ['**', '**/*', '**/mcp', 'builtin*', '*:mcp', '/**', '**/builtin:mcp']) {
      for (const name of BUILTIN_EXTENSIONS) expect(selectorMatches(name, pattern, 'extensions'), `${pattern} vs ${name}`).toBe(false);
    }
  });

  it('builtin: patterns never match paths', () => {
    expect(selectorMatches('/x/builtin:mcp', 'builtin:*', 'extensions')).toBe(false);
    expect(evaluateSelectors(EXTENSIONS, ['!builtin:*', '!builtin:mcp'], 'extensions')).toEqual(EXT_PATHS);
  });

  it('builtin names are ordinary names for skills and tools', () => {
    expect(evaluateSelectors(['builtin:x', 'y'], ['!*', '**'], 'tools')).toEqual(['builtin:x', 'y']);
  });
});

describe('patterns never create unavailable capabilities; ceilings', () => {
  it('a positive naming no candidate adds nothing', () => {
    expect(evaluateSelectors(TOOLS, ['!*', 'read', 'webfetch'], 'tools')).toEqual(['read']);
    expect(evaluateSelectors(EXTENSIONS, ['!*', '/not/there.ts'], 'extensions')).toEqual([]);
  });

  it('the result is a subset of the ceiling', () => {
    const ceiling = ['read', 'grep', 'ls'];
    expect(evaluateSelectors(TOOLS, [], 'tools', ceiling)).toEqual(['read', 'grep', 'ls']);
    expect(evaluateSelectors(TOOLS, ['*'], 'tools', ceiling)).toEqual(['read', 'grep', 'ls']);
    expect(evaluateSelectors(TOOLS, ['!*', 'bash', 'read'], 'tools', ceiling)).toEqual(['read']);
    expect(evaluateSelectors(TOOLS, ['!read'], 'tools', ceiling)).toEqual(['grep', 'ls']);
  });

  it('an empty ceiling allows nothing; ceiling entries outside the candidates are not created', () => {
    expect(evaluateSelectors(TOOLS, ['*'], 'tools', [])).toEqual([]);
    expect(evaluateSelectors(['read'], [], 'tools', ['read', 'bash'])).toEqual(['read']);
  });

  it('ceilings bound skills and extensions (children never exceed the parent)', () => {
    const parent = evaluateSelectors(SKILLS, ['!*', 'pdf*'], 'skills');
    expect(evaluateSelectors(SKILLS, ['!*', 'pdf', 'docx'], 'skills', parent)).toEqual(['pdf']);
    const parentExt = evaluateSelectors(EXTENSIONS, ['!builtin:*'], 'extensions');
    expect(evaluateSelectors(EXTENSIONS, ['builtin:*'], 'extensions', parentExt)).toEqual(EXT_PATHS);
  });
});

describe('result shape', () => {
  it("keeps the candidates' order, not the selectors'", () => {
    expect(evaluateSelectors(TOOLS, ['!*', 'ls', 'read', 'bash'], 'tools')).toEqual(['read', 'bash', 'ls']);
  });

  it('lists a duplicated candidate once', () => {
    expect(evaluateSelectors(['read', 'read', 'bash'], [], 'tools')).toEqual(['read', 'bash']);
  });

  it('does not modify its inputs', () => {
    const candidates = Object.freeze([...TOOLS]);
    const selectors = Object.freeze(['!*', 'read']);
    expect(evaluateSelectors(candidates, selectors, 'tools', Object.freeze(['read']))).toEqual(['read']);
  });
});
