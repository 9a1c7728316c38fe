// Claude Code dynamic workflows: each reviewer's vote comes back in the shape of `schema`.
const lenses = ['security', 'performance'];
const votes = await parallel('votes', lenses.map((lens) => () => agent(`Vote ship or hold from the ${lens} angle.`, { schema: { type: 'object', properties: { vote: { type: 'string', enum: ['ship', 'hold'] } }, required: ['vote'] } })));
const ships = votes.filter((ballot) => ballot.vote === 'ship').length;
return ships > votes.length / 2 ? 'ship' : 'hold';
