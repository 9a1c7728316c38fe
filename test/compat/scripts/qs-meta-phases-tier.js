// pi-dynamic-workflows style: literal meta with phase objects, labelled agents, a model tier.
export const meta = {
  name: 'inspect_project',
  description: 'Inspect this repository and summarize the main modules',
  phases: [{ title: 'Scan' }, { title: 'Analyze' }],
};

phase('Scan');
const inventory = await agent('List the top-level modules of this repository.', { label: 'repo inventory', tier: 'small' });
phase('Analyze');
const summary = await agent(prompt('Summarize each module:\n{inventory}', { inventory }), { label: 'final summary' });
return { inventory, summary };
