import { defineConfig } from 'vitest/config';

/** End-to-end tests (`npm run test:e2e`): real `pi` processes with this package installed; needs a built dist/. */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    // wfcli runs the Pi SDK of this package's node_modules whatever `pi` is, so its files run once, with the default Pi.
    exclude: process.env['PI_CLI'] === 'latest' ? ['test/e2e/wfcli*.test.ts', 'test/e2e/node-version.test.ts'] : [],
    // Most of an e2e test's time is a `pi` process waiting on the loopback model: three files at once keep 2 cores busy.
    maxWorkers: 3,
    globalSetup: ['test/e2e/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
