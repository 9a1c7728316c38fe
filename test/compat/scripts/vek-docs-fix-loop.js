// The public runtime's docs: a bounded fix loop around a test command (in a worktree there).
for (let attempt = 1; attempt <= 5; attempt += 1) {
  const tests = await shell("test -f fixed || { touch fixed; exit 1; }");
  if (tests.exitCode === 0) return { attempt };
  await agent("Fix the test failures:\n\n" + (tests.stderr || tests.stdout));
}
return shell("exit 1");
