/**
 * The `wfcli` of the CLI package (spec 1 "CLI package", issue 37):
 * `npm install -g pi-extensible-workflows-cli` after `pi install
 * npm:pi-extensible-workflows`. It holds no engine: it finds the copy of
 * pi-extensible-workflows that Pi installed and runs that copy's
 * `dist/cli/wfcli.js` in this process, so Pi and `wfcli` share one copy (two
 * copies in one process would split the workflow registry when the headless
 * session loads Pi's copy as an extension). That copy then uses the Pi the
 * user runs (cli/pi-locate.ts): `--pi`, `WFCLI_PI`, else the `pi` on PATH.
 * Where it looks: wfcli-paths.ts. Bundled by rollup into cli-package/bin/wfcli.js.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CORE, ENTRY, coreAt, coreCandidates } from './wfcli-paths.js';

async function run(): Promise<void> {
  const candidates = coreCandidates(process.env);
  const core = candidates.map(coreAt).find((dir) => dir !== undefined);
  if (core === undefined) {
    process.stderr.write(
      `CONFIG_ERROR: wfcli runs the ${CORE} package Pi installed, and Pi has not installed it here (looked in ${candidates.join(', ')}): run \`pi install npm:${CORE}\` (for the user: a project's own install, pi install -l, is never run from here)\n`,
    );
    process.exitCode = 1;
    return;
  }
  // The core's executable reads process.argv and sets process.exitCode itself.
  await import(pathToFileURL(join(core, ENTRY)).href);
}

await run();
