// A first attempt without a guide: calling a helper that is not registered.
const diff = await shell('git diff --stat || true');
return await summarizeDiff({ diff: diff.stdout });
