// A persistent agent handle: every send continues its conversation.
const dev = agent.create({ name: 'dev', label: 'developer' });
const plan = await dev.send('Plan the change.');
const done = await dev.send(prompt('Implement this plan:\n{plan}', { plan }));
return { plan, done };
