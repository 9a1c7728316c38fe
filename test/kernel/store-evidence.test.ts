import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWorkflowError } from '../../kernel/errors.js';
import { createRunDirectory, writeEvidence } from '../../kernel/store/index.js';

let root: string;
let runDir: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'store-evidence-'));
  runDir = createRunDirectory({ root, cwd: '/work/p', sessionId: 's', runId: 'r', source: '', snapshot: { runId: 'r' } });
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe('writeEvidence', () => {
  it('stores text under its sha256 with mode 0600 and returns the record fields', () => {
    const text = 'evidence ü ✓\n'.repeat(1000);
    const sha256 = createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');
    const stored = writeEvidence(runDir, text);
    expect(stored).toEqual({
      sha256,
      path: path.join(path.resolve(runDir), 'evidence', `${sha256}.txt`),
      bytes: Buffer.byteLength(text, 'utf8'),
    });
    expect(path.isAbsolute(stored.path)).toBe(true);
    expect(fs.readFileSync(stored.path, 'utf8')).toBe(text);
    expect(fs.statSync(stored.path).mode & 0o777).toBe(0o600);
  });

  it('reuses the file for the same text', () => {
    const first = writeEvidence(runDir, 'same');
    const before = fs.statSync(first.path);
    const second = writeEvidence(runDir, 'same');
    expect(second).toEqual(first);
    expect(fs.statSync(second.path).ino).toBe(before.ino);
    expect(fs.readdirSync(path.join(runDir, 'evidence'))).toEqual([`${first.sha256}.txt`]);
  });

  it('rejects a modified artifact, naming its path, and leaves it alone', () => {
    const stored = writeEvidence(runDir, 'original');
    fs.writeFileSync(stored.path, 'tampered');
    let caught: unknown;
    try {
      writeEvidence(runDir, 'original');
    } catch (error) {
      caught = error;
    }
    expect(isWorkflowError(caught) && caught.code).toBe('INTERNAL_ERROR');
    expect(isWorkflowError(caught) && caught.message).toContain(stored.path);
    expect(fs.readFileSync(stored.path, 'utf8')).toBe('tampered');
  });

  it('recreates a missing evidence folder but never a missing run', () => {
    fs.rmSync(path.join(runDir, 'evidence'), { recursive: true });
    const stored = writeEvidence(runDir, 'x');
    expect(fs.statSync(path.dirname(stored.path)).mode & 0o777).toBe(0o700);
    fs.rmSync(runDir, { recursive: true });
    let caught: unknown;
    try {
      writeEvidence(runDir, 'y');
    } catch (error) {
      caught = error;
    }
    expect(isWorkflowError(caught) && caught.code).toBe('RUN_NOT_FOUND');
    expect(fs.existsSync(runDir)).toBe(false);
  });
});
