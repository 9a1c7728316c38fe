// Claude Code style: scale depth with the shared token budget.
const depth = budget.remaining() > 100000 ? 3 : 1;
const notes = [];
for (let i = 0; i < depth; i += 1) notes.push(await agent(`Research round ${i + 1}`));
return notes;
