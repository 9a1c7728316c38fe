// A named parallel over an array of thunks: results come back as an array.
const [node, git] = await parallel('versions', [() => shell('echo node'), () => shell('echo git')]);
return [node.stdout.trim(), git.stdout.trim()];
