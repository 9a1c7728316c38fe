/**
 * Set-up of every e2e file: when a test fails, print the `pi` and `wfcli` processes it started (process-log.ts),
 * beside what its own assertion says.
 */
import { beforeEach } from 'vitest';
import { clearProcessLog, describeProcesses } from './process-log.js';

beforeEach((context) => {
  clearProcessLog();
  context.onTestFailed(() => {
    const processes = describeProcesses();
    if (processes !== '') console.error(`${context.task.name}: the last processes it started, oldest first:\n${processes}`);
  });
});
