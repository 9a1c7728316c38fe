import { defineConfig } from 'vitest/config';

const PI_LATEST_FILES = ['script-tools', 'print-mode', 'host-rpc', 'update-notice', 'packed-install', 'shells', 'packages', 'workflow', 'agent-tools', 'dashboard', 'subagents', 'subagents-filter', 'trajectory-widget', 'tmux-panes', 'tmux-panes-handoff', 'transcripts', 'trust', 'package-contents'];

/** End-to-end tests (`npm run test:e2e`): real `pi` processes with this package installed; needs a built dist/. */
export default defineConfig({
  test: {
    // Pi 1.x runs the files whose outcome can depend on the Pi that runs them (tools, packages, extension
    // API, UI, the pane's `pi`). wfcli runs the Pi SDK of this package's node_modules whatever `pi` is.
    include: process.env['PI_CLI'] === 'latest' ? PI_LATEST_FILES.map((name) => `test/e2e/${name}.test.ts`) : ['test/e2e/**/*.test.ts'],
    // Most of an e2e test's time is a `pi` process waiting on the loopback model: three files at once keep 2 cores busy.
    maxWorkers: 3,
    globalSetup: ['test/e2e/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
