// Claude Code style: timing a phase with the clock.
const started = Date.now();
const summary = await agent('Summarize the changelog.');
return { summary, ms: Date.now() - started };
