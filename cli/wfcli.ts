/** The `wfcli` executable (dist/cli/wfcli.js): the process's I/O and signals around `main` (main.ts). */
import { main } from './main.js';
import { outputFlushed, processIo } from './process-io.js';

let sessionOpened = false;
process.exitCode = await main(process.argv.slice(2), processIo, {
  // Before the command's modules load: for a session, own imports by URL and the compile cache
  // (session-process.ts); otherwise the compile cache in an existing store (compile-cache.ts).
  // Loaded here, not with the dispatcher: `--help` and usage errors need neither.
  beforeCommand: async (io, { opensSession }) => {
    sessionOpened = opensSession;
    if (opensSession) (await import('./session-process.js')).prepareSessionProcess(io.home);
    else (await import('./compile-cache.js')).useStoreCompileCache(io.home);
  },
});
// Ends now, as `pi` ends its commands, rather than when the event loop empties:
// a natural end then tears down the whole heap, about 50 ms after `wfcli run`
// (issue 34). Every command has awaited its work by now; queued output goes first.
await outputFlushed();
// Its sandbox processes end with it, reaped (loaded already when a session opened).
if (sessionOpened) await (await import('../kernel/sandbox/sandbox-process.js')).endSandboxes();
process.exit();
