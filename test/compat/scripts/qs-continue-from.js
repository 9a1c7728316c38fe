// Continuing an agent's conversation with an option another runtime reads.
const plan = await agent('Plan the refactor.', { label: 'planner' });
const next = await agent('Now implement step one.', { label: 'planner', continueFrom: 'planner' });
return { plan, next };
