import { defineConfig } from 'vitest/config';

/** The hostile reproductions (issue 24) that drive the real built `wfcli` (`npm run test:adversarial`, after `npm run build`). */
export const CLI_SUITES = ['test/adversarial/values.test.ts', 'test/adversarial/limits.test.ts', 'test/adversarial/usage.test.ts', 'test/adversarial/shells.test.ts', 'test/adversarial/readers.test.ts', 'test/adversarial/outputs.test.ts', 'test/adversarial/session-full.test.ts', 'test/adversarial/long-words.test.ts', 'test/adversarial/transcript-links.test.ts'];

export default defineConfig({
  test: {
    include: CLI_SUITES,
    // Every case starts one or more `wfcli` processes, each a headless Pi session: a file at a time on 2 cores.
    maxWorkers: 2,
    globalSetup: ['test/e2e/global-setup.ts'],
    // A hang guard for cases of several processes (each also has its own 40 s kill guard), not a timing expectation.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
