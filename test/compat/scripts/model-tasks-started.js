// Tasks given as running work instead of functions.
const results = await parallel('reviews', {
  api: agent('Review the API.'),
  ui: agent('Review the UI.'),
});
return results;
