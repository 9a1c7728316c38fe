// Claude Code style: a registered subagent type and a display label.
const map = await agent('Map the modules of this repository.', { agentType: 'Explore', label: 'explore' });
return map;
