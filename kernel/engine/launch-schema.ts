/**
 * The JSON schema of a launch request (launch-request.ts checks requests
 * against it), compiled at build time with `strictRequired: false` (the
 * oneOf branches only name required keys declared above them):
 * kernel/compiled-schemas/launch-request.ts.
 */
export const LAUNCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'cwd'],
  properties: {
    name: { type: 'string', minLength: 1, pattern: '\\S' },
    description: { type: 'string' },
    script: { type: 'string' },
    scriptPath: { type: 'string', minLength: 1 },
    args: {},
    cwd: { type: 'string', minLength: 1 },
    foreground: { type: 'boolean' },
    concurrency: { type: 'integer', minimum: 1, maximum: 16 },
    parentRunId: { type: 'string', minLength: 1 },
    options: { type: 'object' },
  },
  oneOf: [{ required: ['script'] }, { required: ['scriptPath'] }],
} as const;
