import { defineConfig } from 'vitest/config';
import { CLI_SUITES } from './test/adversarial/vitest.cli.config.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Parts of `npm test` with configs of their own (scripts/test-all.sh): the CLI reproductions of issue 24 and
    // the build checks need the built package; the crash suite and the replay fuzzer (all its seeds) run alone.
    exclude: ['test/e2e/**', 'test/crash/**', 'test/build/**', 'node_modules/**', 'test/adversarial/replay-fuzz.test.ts', ...CLI_SUITES],
    // Vitest's default is one worker fewer than the cores: one, on the 2-core machines CI and we use.
    maxWorkers: 2,
    // Files share a worker's module graph: importing Pi's SDK and the kernel once per worker, not once per
    // file, halves the suite's CPU. So a test file restores what it changes (registries reset, mocks restored).
    isolate: false,
    globalSetup: ['test/support/strip-cache.ts'],
    setupFiles: ['test/support/unit-setup.ts'],
    // Hang guards, not timing expectations (waits are for events; see test/support/engine-harness.ts waitFor).
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
