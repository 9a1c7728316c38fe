// The public runtime's older README: an agent in its own worktree.
const report = await agent("Implement the fix", { name: "implementation", isolation: "worktree" });
return report;
