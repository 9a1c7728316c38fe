import { defineConfig } from 'vitest/config';
import { CLI_SUITES } from './test/adversarial/vitest.cli.config.js';

/** The edge worker's behaviour suite under workerd (about 85 s): the Node adapter runs the same suite in `npm test`. */
const EXTENDED_UNIT_FILES = ['test/relay/worker.test.ts'];

export default defineConfig({
  test: {
    // UNIT_EXTENDED=1 (`npm run test:extended`) runs only the slow files `npm test` leaves out.
    include: process.env['UNIT_EXTENDED'] === '1' ? EXTENDED_UNIT_FILES : ['test/**/*.test.ts'],
    // The CLI reproductions of issue 24 need the built package: they run in `npm run test:adversarial`.
    exclude: ['test/e2e/**', 'test/crash/**', 'test/build/**', 'node_modules/**', ...CLI_SUITES, ...(process.env['UNIT_EXTENDED'] === '1' ? [] : EXTENDED_UNIT_FILES)],
    // Vitest's default is one worker fewer than the cores: one, on the 2-core machines CI and we use.
    maxWorkers: 2,
    // Files share a worker's module graph: importing Pi's SDK and the kernel once per worker, not once per
    // file, halves the suite's CPU. So a test file restores what it changes (registries reset, mocks restored).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
