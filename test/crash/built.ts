/**
 * The built package (dist/) for the crash-test and replay-fuzz host processes. `npm test` builds before these
 * parts run (the suites' global setup stops at once without a build). A host process that loads the built
 * JavaScript starts in a third of the CPU time of one that loads the TypeScript sources through type
 * stripping, and the fuzzer starts about 700 of them. The sandbox worker then comes from dist/ too. Like a
 * `wfcli` command, a host runs one segment and exits, so its engine keeps no spare sandbox.
 */
const DIST = new URL('../../dist/', import.meta.url);

const load = async <T>(path: string): Promise<T> => (await import(new URL(path, DIST).href)) as T;

export const kernel = await load<typeof import('../../kernel/index.js')>('kernel/index.js');
export const checkpoints = await load<typeof import('../../plugins/checkpoints/index.js')>('plugins/checkpoints/library.js');
export const evidence = await load<typeof import('../../plugins/evidence/index.js')>('plugins/evidence/library.js');

kernel.disableSandboxSpares();
