/**
 * The README and docs show example files whole: each pair below must hold
 * the file's exact text as one fenced block, so an edit to either is caught.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const SHOWN: readonly (readonly [doc: string, example: string])[] = [
  ['README.md', 'examples/hello.js'],
  ['docs/architecture.md', 'examples/greeting-plugin.js'],
];

describe('examples shown in the docs', () => {
  it.each(SHOWN)('%s shows %s exactly', (doc, example) => {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    // The fence's info after `js` (`run ...`, `no-run: ...`) is for test/e2e/script-compat.test.ts.
    const blocks = [...text.matchAll(/^```js(?: .*)?\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
    expect(blocks).toContain(readFileSync(join(ROOT, example), 'utf8'));
  });
});
