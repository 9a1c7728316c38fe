// Claude Code style: parallel mutation, each agent in a fresh worktree.
const fixes = await parallel([
  () => agent('Fix the flaky login test.', { isolation: 'worktree', label: 'login' }),
  () => agent('Fix the flaky signup test.', { isolation: 'worktree', label: 'signup' }),
]);
return fixes;
