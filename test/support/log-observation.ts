/** A `notes.logged` input as the engine hands it over, for tests of what shows log messages. */
import type { LogObservation } from '../../kernel/index.js';

export function logObservation(runId: string, message: string): LogObservation {
  return { run: { runId, cwd: '/p', sessionId: 's' }, message, path: [], at: '2026-01-01T00:00:00.000Z' };
}
