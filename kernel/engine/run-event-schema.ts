/**
 * The two fields every line of a run's events.jsonl has (run-events.ts skips
 * a line without them). Compiled at build time:
 * kernel/compiled-schemas/run-event.ts.
 */
export const RUN_EVENT_SCHEMA = {
  type: 'object',
  required: ['type', 'at'],
  properties: { type: { type: 'string', minLength: 1 }, at: { type: 'string' } },
} as const;
