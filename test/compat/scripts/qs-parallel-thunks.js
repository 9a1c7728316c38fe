// pi-dynamic-workflows style: parallel thunks keep input order; pair results with their IDs.
const ids = ['auth', 'billing', 'search'];
const results = await parallel(ids.map((id) => () => agent(`Summarize the ${id} module.`, { label: id })));
return ids.map((id, index) => ({ id, summary: results[index] }));
