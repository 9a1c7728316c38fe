import { defineConfig } from 'vitest/config';

/**
 * The long replay fuzz (`npm run test:replay-fuzz`, a part of `npm test`): REPLAY_FUZZ_SEEDS seeds (200 from
 * the npm scripts), four at a time: each seed is a chain of host processes that also wait (shells sleep,
 * checkpoints are answered after a pause), and four keep the 2 cores busy.
 */
export default defineConfig({
  test: {
    include: ['test/adversarial/replay-fuzz.test.ts'],
    // The host processes load the built package (test/crash/built.ts): stop at once without a build.
    globalSetup: ['test/e2e/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    maxConcurrency: 4,
  },
});
