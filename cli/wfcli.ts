/** The `wfcli` executable (dist/cli/wfcli.js): the process's I/O and signals around `main` (main.ts). */
import { main } from './main.js';
import { processIo } from './process-io.js';

process.exitCode = await main(process.argv.slice(2), processIo);
