/**
 * bench:bundle: how long `wfcli bundle`'s rollup build takes (cli/bundle/build.ts),
 * cold (first build in the process) and warm (median of the next ones), on the
 * e2e fixture extension (a local helper and pathe inlined), and the payload's
 * size next to the module graph it replaces. Run storage and Pi are not
 * involved: the build is the part that grows with the extension.
 * Node runs this file with type stripping; the resolve hook maps `.js` imports to `.ts` sources.
 */
import '../scripts/ts-resolve.mjs';

const { fileURLToPath } = await import('node:url');
const { buildPayload } = await import('../cli/bundle/build.js');

const ROOT = fileURLToPath(new URL('../test/e2e/fixtures/bundle-extension/', import.meta.url));
const REPEAT = Number(process.env['BENCH_BUNDLE_REPEAT'] ?? 10);

async function once(): Promise<{ ms: number; payload: number; graph: number }> {
  const started = performance.now();
  const built = await buildPayload({ sourcePath: `${ROOT}index.js`, packageRoot: ROOT, dependencies: ['pathe'] });
  return { ms: performance.now() - started, payload: Buffer.byteLength(built.code), graph: built.graphBytes };
}

const cold = await once();
const warm: number[] = [];
for (let i = 0; i < REPEAT; i += 1) warm.push((await once()).ms);
warm.sort((a, b) => a - b);
console.log(`BENCH bundle_cold_ms ${cold.ms.toFixed(0)} ms`);
console.log(`BENCH bundle_ms ${(warm[Math.floor(warm.length / 2)] ?? 0).toFixed(1)} ms`);
console.log(`BENCH bundle_payload_bytes ${cold.payload} bytes`);
console.log(`BENCH bundle_graph_bytes ${cold.graph} bytes`);
