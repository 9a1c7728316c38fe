// pi-dynamic-workflows style: progress through console.log.
const result = await agent('Check the build scripts.', { label: 'build check' });
console.log('build check finished');
return result;
