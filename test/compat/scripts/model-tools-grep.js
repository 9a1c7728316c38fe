// A read-only reviewer, as a model writes it from a tools example with grep.
const review = await agent('Review the parser for bugs.', { label: 'reviewer', tools: ['!*', 'read', 'grep'] });
return review;
