import { defineConfig } from 'vitest/config';

/** Checks of the built package (`npm run test:build`, after `npm run build`): import boundaries, the plugin manifest, a build without an optional plugin. */
export default defineConfig({
  test: {
    include: ['test/build/**/*.test.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    setupFiles: ['test/e2e/support/failure-report.ts'],
    // The leave-out build (rollup, then a real `pi`) runs beside the quick boundary and manifest checks.
    maxWorkers: 2,
    testTimeout: 240_000,
    hookTimeout: 240_000,
  },
});
