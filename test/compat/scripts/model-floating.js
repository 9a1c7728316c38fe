// A first attempt without a guide: a fire-and-forget agent.
agent('Write the release notes in the background.');
return 'started';
