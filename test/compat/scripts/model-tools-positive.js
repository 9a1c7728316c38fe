// An allow-list without "!*": every tool starts enabled, so it narrows nothing.
const notes = await agent('Summarize the build scripts.', { label: 'scout', tools: ['read', 'bash'] });
return notes;
