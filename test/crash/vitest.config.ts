import { defineConfig } from 'vitest/config';

/** The crash test only (`npm run test:crash`): slow, spawns and SIGKILLs host processes. */
export default defineConfig({
  test: {
    include: ['test/crash/**/*.test.ts'],
    // The host processes load the built package (test/crash/built.ts): stop at once without a build.
    globalSetup: ['test/e2e/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Two seeds at a time: each seed is a chain of host processes, and the machine has 2 cores.
    maxConcurrency: 2,
  },
});
