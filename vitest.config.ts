import { defineConfig } from 'vitest/config';
import { CLI_SUITES } from './test/adversarial/vitest.cli.config.js';

/**
 * The slowest files whose rules `npm test` also covers elsewhere: the edge worker's behaviour suite under workerd
 * (the Node adapter runs the same suite), the full-disk tmpfs runs (store/engine-faults injects the same faults),
 * the host-survival probes, worktree reuse and scopes through real git, hook setup and the starter's prompts.
 */
const EXTENDED_UNIT_FILES = [
  'test/relay/worker.test.ts',
  'test/store/full-disk.test.ts',
  'test/adversarial/host-survives.test.ts',
  'test/plugins/worktrees/reuse.test.ts',
  'test/plugins/worktrees/scope.test.ts',
  'test/plugins/extension-hooks/setup.test.ts',
  'test/starter/prompts.test.ts',
];

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
