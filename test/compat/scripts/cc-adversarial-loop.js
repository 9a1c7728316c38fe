// Claude Code style: find, then try to refute each finding, one at a time.
const found = await agent('List suspicious functions.', {
  outputSchema: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: { type: 'string' } } } },
});
const confirmed = [];
for (const item of found.items) {
  const verdict = await agent(prompt('Try to refute this finding: {item}', { item }), {
    outputSchema: { type: 'object', required: ['real'], properties: { real: { type: 'boolean' } } },
  });
  if (verdict.real) confirmed.push(item);
}
return confirmed;
