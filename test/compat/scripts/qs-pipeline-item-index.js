// pi-dynamic-workflows style: stages get (previousValue, originalItem, index).
const ids = ['auth', 'billing'];
const results = await pipeline(
  ids,
  (id) => agent(`Find the entry points of ${id}.`, { label: `find ${id}` }),
  (entries, id, index) => (entries === null ? null : agent(`Review ${id} (#${index}):\n${entries}`)),
);
return results;
