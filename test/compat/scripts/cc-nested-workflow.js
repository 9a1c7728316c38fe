// Claude Code style: run a saved workflow inline.
const review = await workflow('security-review', { target: args.target });
return review;
