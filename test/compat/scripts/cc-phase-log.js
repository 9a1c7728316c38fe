// Claude Code style: phases and narrator lines around sequential agents.
phase('Research');
log('starting research');
const notes = await agent('Research the caching layer.');
phase('Write');
const report = await agent(prompt('Write a report from these notes:\n{notes}', { notes }));
log('done');
return report;
