import { defineConfig } from 'vitest/config';

/** End-to-end tests (`npm run test:e2e`): real `pi` processes with this package installed; needs a built dist/. */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
