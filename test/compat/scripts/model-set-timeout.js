// A first attempt without a guide: waiting between polls with a timer.
for (let i = 0; i < 3; i += 1) {
  const status = await shell('exit 0');
  if (status.exitCode === 0) break;
  await new Promise((resolve) => setTimeout(resolve, 1000));
}
return 'ready';
