// pi-dynamic-workflows style: the working directory from process.cwd().
const root = process.cwd();
return await agent(`List the packages under ${root}.`, { label: 'packages' });
