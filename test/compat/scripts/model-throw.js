// A script that gives up with its own error.
const status = await shell('exit 3');
if (status.exitCode !== 0) {
  throw new Error(`the build failed with exit code ${status.exitCode}`);
}
return 'built';
