import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isWorkflowError } from '../../kernel/errors.js';
import { entryPath } from '../../kernel/store/paths.js';
import {
  isValidRunId,
  isValidSessionId,
  newRunId,
  projectKey,
  runDirectory,
  runsDirectory,
  workflowsRoot,
} from '../../kernel/store/index.js';

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('workflowsRoot', () => {
  it('is <home>/.pi/workflows', () => {
    expect(workflowsRoot('/home/u')).toBe(path.join('/home/u', '.pi', 'workflows'));
  });
});

describe('entryPath', () => {
  it("is path.join's result for a plain name, whatever the folder: normal, relative, root, with dot segments, doubled or trailing slashes", () => {
    const folders = ['/a/b', 'a/b', '/', '', '.', './a', 'a/./b', 'a/../b', '..', '../a', '/a/b/', '/a//b', '//a', '/a/.b', '/a/..b', '/a/...', 'a/.', '/a/b/..'];
    for (const folder of folders) for (const name of ['snapshot.json', 'wf-0abc-1', '.system-prompts', 'a.b']) expect(entryPath(folder, name), `${folder} + ${name}`).toBe(path.join(folder, name));
  });
});

describe('projectKey', () => {
  it('is a slug of the resolved cwd plus 12 hex of its sha256', () => {
    expect(projectKey('/work/my-app')).toMatch(/^work-my-app-[0-9a-f]{12}$/);
  });

  it('resolves the cwd first', () => {
    expect(projectKey('/work/x/../my-app/')).toBe(projectKey('/work/my-app'));
  });

  it('replaces separators and unsafe characters and trims the result', () => {
    const key = projectKey('/tmp/My Project (copy)/ü/');
    expect(key).toMatch(/^tmp-My-Project-copy-[0-9a-f]{12}$/);
  });

  it('caps the slug at 48 characters, keeping the tail of the path', () => {
    const key = projectKey(`/${'a'.repeat(80)}/the-project`);
    const slug = key.slice(0, -13);
    expect(slug.length).toBeLessThanOrEqual(48);
    expect(slug.endsWith('the-project')).toBe(true);
    expect(slug).not.toMatch(/^[-.]/);
  });

  it('is never empty, even for the filesystem root', () => {
    expect(projectKey('/')).toMatch(/^root-[0-9a-f]{12}$/);
  });

  it('gives two cwds with the same slug different keys', () => {
    const a = projectKey('/work/a b');
    const b = projectKey('/work/a-b');
    expect(a.slice(0, -13)).toBe(b.slice(0, -13));
    expect(a).not.toBe(b);
  });
});

describe('ids', () => {
  it('accepts ordinary ids', () => {
    for (const id of ['a', 'wf-0abc-12345678', 'session_1.2', 'A'.repeat(128)]) {
      expect(isValidRunId(id)).toBe(true);
      expect(isValidSessionId(id)).toBe(true);
    }
  });

  it('rejects empty, traversal, separators, leading dots and long ids', () => {
    for (const id of ['', '.', '..', 'a..b', '../x', 'a/b', 'a\\b', '.hidden', '-x', 'a b', 'A'.repeat(129), 'é']) {
      expect(isValidRunId(id)).toBe(false);
      expect(isValidSessionId(id)).toBe(false);
    }
    expect(isValidRunId(42)).toBe(false);
  });

  it('throws RUN_NOT_FOUND for invalid ids in every path function', () => {
    for (const call of [
      () => runDirectory('/r', '/w', 's1', '../../etc'),
      () => runDirectory('/r', '/w', '..', 'run1'),
      () => runsDirectory('/r', '/w', 'a/b'),
    ]) {
      const error = errorOf(call);
      expect(isWorkflowError(error) && error.code).toBe('RUN_NOT_FOUND');
    }
  });

  it('builds the run directory under projects/<key>/sessions/<session>/runs/<run>', () => {
    expect(runDirectory('/r', '/work/app', 's1', 'run1')).toBe(
      path.join('/r', 'projects', projectKey('/work/app'), 'sessions', 's1', 'runs', 'run1'),
    );
  });
});

describe('newRunId', () => {
  it('makes valid, unique ids that sort in creation order', () => {
    const ids = Array.from({ length: 2000 }, () => newRunId());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) {
      expect(isValidRunId(id)).toBe(true);
      expect(id).toMatch(/^wf-[0-9a-z]{9}-[0-9a-f]{8}$/);
    }
  });
});
