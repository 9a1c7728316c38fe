import { defineConfig } from 'vitest/config';

/**
 * The long replay fuzz (`npm run test:replay-fuzz`): REPLAY_FUZZ_SEEDS seeds
 * (200 from the npm script), three at a time: each seed is a chain of host
 * processes, and the machine has 2 cores.
 */
export default defineConfig({
  test: {
    include: ['test/adversarial/replay-fuzz.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    maxConcurrency: 3,
  },
});
