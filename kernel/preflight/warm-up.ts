/**
 * The preflight's first run pays for loading rollup's parser (its native
 * binding) and for compiling the checks' code: tens of milliseconds a
 * session's first launch need not wait for. An engine runs one preflight of a
 * small script in the background shortly after it is created, so a Pi start,
 * `wfcli --help` or `wfcli list` (which create no engine) never pay it, and
 * skips it when a script was preflighted by then.
 */
import { preflight } from './index.js';
import { parserLoaded } from './parse-ast.js';

/** After the engine's creation, so the warm-up does not compete with what starts with it (the spare sandbox). */
const WARM_UP_DELAY_MS = 100;

/** Uses the forms a launch's script commonly has: meta, awaited calls, a parallel of thunks, a template literal. */
const SAMPLE = `export const meta = { description: 'warm-up' };
const first = await step({ n: 1 });
const [a, b] = await parallel([() => step({ n: 2 }), () => step({ n: 3 })]);
log(\`done \${first}\`);
return { first, a, b };
`;

let warmed = false;

/** Runs one throwaway preflight once per process; a process about to exit does not wait for it. */
export function warmUpPreflight(): void {
  if (warmed) return;
  warmed = true;
  setTimeout(() => {
    // A launch came first (`wfcli run` launches at once): its preflight loaded the parser and ran the checks.
    if (parserLoaded()) return;
    try {
      preflight(SAMPLE, { primitives: ['parallel', 'log'], functions: ['step'], effects: [] });
    } catch {
      // The first launch's preflight loads the parser again and reports why it cannot.
    }
  }, WARM_UP_DELAY_MS).unref();
}
