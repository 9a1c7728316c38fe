import { configDefaults, defineConfig } from 'vitest/config';

// Pi 1.x runs the files whose outcome depends most on the Pi that runs them: package loading and contents,
// trust, session storage, print mode, the update notice (Pi 1.5 shows package changelogs itself), and the installed wfcli, which runs on the `pi` on PATH. The rest drive this package's own code.
const PI_LATEST_FILES = ['packages', 'package-contents', 'trust', 'transcripts', 'print-mode', 'installed-cli', 'update-notice', 'run-notices', 'live-logs', 'remote-agents-latest'];
const files = (names: readonly string[]): string[] => names.map((name) => `test/e2e/${name}.test.ts`);
// Files for another Pi only: on the default Pi another file covers their path (remote-agents-latest: remote-agents).
const OTHER_PI_ONLY = ['remote-agents-latest'];
const otherPi = (process.env['PI_CLI'] ?? '') !== '';

/** End-to-end tests (`npm run test:e2e`): real `pi` processes with this package installed; needs a built dist/. */
export default defineConfig({
  test: {
    // The checkout's wfcli runs the `pi` on PATH, which npm and npx make the checkout's (node_modules/.bin), whatever
    // PI_CLI is, so Pi 1.x runs only PI_LATEST_FILES (installed-cli puts PI_CLI's `pi` on PATH itself).
    include: process.env['PI_CLI'] === 'latest' ? files(PI_LATEST_FILES) : ['test/e2e/**/*.test.ts'],
    exclude: otherPi ? configDefaults.exclude : [...configDefaults.exclude, ...files(OTHER_PI_ONLY)],
    // Most of an e2e test's time is a `pi` process waiting on the loopback model: three files at once keep 2 cores busy.
    maxWorkers: 3,
    globalSetup: ['test/e2e/global-setup.ts'],
    // A failing test prints the `pi` and `wfcli` processes it started, with their output.
    setupFiles: ['test/e2e/support/failure-report.ts'],
    // Hang guards, not timing expectations: a file of several `pi` processes takes minutes on a loaded machine.
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
