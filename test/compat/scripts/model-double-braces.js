// Mustache-style placeholders (this runtime's own form before it followed the public one).
const file = 'src/app.ts';
return await agent(prompt('Review {{file}} for error handling.', { file }));
