// A structured result with outputSchema, read by the script.
const report = await agent('Count the TODO comments and summarize them.', {
  outputSchema: {
    type: 'object',
    required: ['count', 'summary'],
    properties: { count: { type: 'number' }, summary: { type: 'string' } },
    additionalProperties: false,
  },
});
return report.count > 0 ? report.summary : 'none';
