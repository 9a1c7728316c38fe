/**
 * Runs before every unit test file. Files share a worker's module graph and globals (`isolate: false`), and
 * which files share a worker changes with the machine's load; so each file starts with the process-wide
 * state a fresh Pi process has: an empty, loading workflow registry, no active host, sandbox spares on.
 */
import { beforeAll } from 'vitest';
import { resetWorkflowRegistry } from '../../kernel/registry/store.js';

beforeAll(() => {
  resetWorkflowRegistry();
  Reflect.deleteProperty(globalThis, Symbol.for('pi-extensible-workflows.active-host'));
  Reflect.deleteProperty(globalThis, Symbol.for('pi-extensible-workflows.no-sandbox-spares'));
});
