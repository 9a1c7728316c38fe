// A report stamped with the current date.
const notes = await agent('Summarize the open issues.');
return { notes, at: new Date().toISOString() };
