// The prompt inside the options object, as some SDKs take it.
const summary = await agent({ prompt: 'Summarize README.md in three bullets.', label: 'summary' });
return summary;
