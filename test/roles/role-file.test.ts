/**
 * One role file (roles/role-file.ts): YAML front matter validated with ajv,
 * the body as prompt guidance, the file name as the role name. Every problem
 * is a CONFIG_ERROR naming the file.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRoleFile, roleNameOf } from '../../roles/index.js';
import { thrownBy } from '../support/engine-harness.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'wf-role-file-')));
const file = (name = 'reviewer') => join(dir, `${name}.md`);
const HOME = '/home/someone';

describe('parseRoleFile', () => {
  it('reads every front matter field and the body', () => {
    const text = [
      '---',
      'description: Reviews changes',
      'model: reviewer-model:high',
      'tools: ["!*", read, grep]',
      'skills:',
      '  - "!*"',
      '  - review-*',
      'extensions: ["!*", "./helpers/*.js", "~/ext/a.js", "builtin:mcp"]',
      'contextFiles: false',
      'overrideSystemPrompt: false',
      '---',
      '',
      'Be strict.',
      'Never edit files.',
      '',
    ].join('\n');
    expect(parseRoleFile(text, file(), HOME)).toEqual({
      name: 'reviewer',
      description: 'Reviews changes',
      model: 'reviewer-model:high',
      tools: ['!*', 'read', 'grep'],
      skills: ['!*', 'review-*'],
      extensions: ['!*', join(dir, 'helpers', '*.js'), '/home/someone/ext/a.js', 'builtin:mcp'],
      contextFiles: false,
      overrideSystemPrompt: false,
      prompt: 'Be strict.\nNever edit files.',
    });
  });

  it('accepts CRLF line ends, a byte order mark, context file selectors and an empty body', () => {
    const role = parseRoleFile('\uFEFF---\r\ndescription: Scouts\r\ncontextFiles: ["**/AGENTS.md"]\r\n---\r\n', file('scout'), HOME);
    expect(role).toEqual({ name: 'scout', description: 'Scouts', contextFiles: ['**/AGENTS.md'], overrideSystemPrompt: false, prompt: '' });
  });

  it.each([
    ['no front matter', 'Just a body', 'it must start with YAML front matter'],
    ['an unclosed front matter', '---\ndescription: x\n', 'no closing "---" line'],
    ['invalid YAML', '---\ndescription: [unclosed\n---\n', 'the front matter is not valid YAML'],
    ['a duplicate key', '---\ndescription: a\ndescription: b\n---\n', 'the front matter is not valid YAML'],
    ['no description', '---\nmodel: x\n---\nbody', "must have required property 'description'"],
    ['a blank description', '---\ndescription: "  "\n---\n', '/description must match pattern'],
    ['an unknown key (a typo)', '---\ndescription: x\ntool: [read]\n---\n', 'has unknown key "tool"'],
    ['tools that are not a list', '---\ndescription: x\ntools: read\n---\n', '/tools must be array'],
    ['a model with spaces', '---\ndescription: x\nmodel: a b\n---\n', '/model must match pattern'],
    ['a scalar front matter', '---\njust text\n---\n', '(root) must be object'],
    ['an override without a body', '---\ndescription: x\noverrideSystemPrompt: true\n---\n\n', 'overrideSystemPrompt needs a body'],
  ])('rejects %s with CONFIG_ERROR naming the file', (_what, text, problem) => {
    const error = thrownBy(() => parseRoleFile(text, file(), HOME));
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toContain(`Role file ${file()}: `);
    expect(error.message).toContain(problem);
    expect(error.details).toMatchObject({ file: file() });
  });

  it('rejects a file name that is not a role name', () => {
    const error = thrownBy(() => parseRoleFile('---\ndescription: x\n---\n', file('1st role'), HOME));
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toContain('the file name must be <role>.md');
  });

  it('names role files by their .md file name and skips hidden and other files', () => {
    expect(roleNameOf('reviewer.md')).toBe('reviewer');
    expect(roleNameOf('.draft.md')).toBeUndefined();
    expect(roleNameOf('notes.txt')).toBeUndefined();
  });
});
