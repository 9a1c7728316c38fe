```js
// A model that wrapped its script in a Markdown fence.
const answer = await agent('Name the test runner of this repository.');
return answer;
```
