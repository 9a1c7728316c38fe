/** The `wfcli` executable (dist/cli/wfcli.js): the process's I/O and signals around `main` (main.ts). */
import { main } from './main.js';
import { processIo } from './process-io.js';

process.exitCode = await main(process.argv.slice(2), processIo, {
  // Before the command's modules load: for a session, own imports by URL and the compile cache
  // (session-process.ts); otherwise the compile cache in an existing store (compile-cache.ts).
  // Loaded here, not with the dispatcher: `--help` and usage errors need neither.
  beforeCommand: async (io, { opensSession }) => {
    if (opensSession) (await import('./session-process.js')).prepareSessionProcess(io.home);
    else (await import('./compile-cache.js')).useStoreCompileCache(io.home);
  },
});
