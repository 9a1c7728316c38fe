/**
 * Seeded random workflows for the replay fuzzer. Each mixes shell commands
 * with random delays, parallel branches, pipelines, a registered function,
 * agents, answered checkpoints, promise chains, joins and calls started
 * without await. The result is an object filled under fixed keys, so it does
 * not depend on timing; every shell appends a tag unique to that execution of
 * it to ledger.txt. Some seeds also contain a race the rules forbid (one call
 * site reached from two promise chains through a variable), which must fail
 * the run the same way every time.
 */
import { mulberry32 } from '../crash/shared.js';

export interface FuzzScript {
  readonly script: string;
  /** The script contains a race the run-time rule refuses. */
  readonly racing: boolean;
}

export function fuzzScript(seed: number): FuzzScript {
  const random = mulberry32(seed);
  const pick = (n: number): number => Math.floor(random() * n);
  let tags = 0;
  const tag = (): string => `t${++tags}`;
  /** A shell that waits 0–80 ms, appends `name` to the ledger and prints it. */
  const cmd = (name: string): string => `\`sleep 0.0${pick(9)}; echo ${name} >> ledger.txt; echo ${name}\``;
  const lines: string[] = ['const out = {};', 'const step = (name) => shell(`sleep 0.0' + pick(5) + '; echo ${name} >> ledger.txt; echo ${name}`);'];
  let key = 0;
  const slot = (): string => `out.k${++key}`;
  let racing = false;
  const kinds = 6 + pick(6);
  for (let index = 0; index < kinds; index += 1) {
    switch (pick(12)) {
      case 0:
        lines.push(`${slot()} = (await shell(${cmd(tag())})).stdout;`);
        break;
      case 1: {
        const name = tag();
        lines.push(`for (let i = 0; i < ${2 + pick(3)}; i++) out['loop${key + 1}_' + i] = (await step('${name}-' + i)).stdout;`);
        key += 1;
        break;
      }
      case 2: {
        const [a, b, c] = [tag(), tag(), tag()];
        lines.push(
          `${slot()} = await parallel('p${key}', {`,
          `  a: async () => [(await shell(${cmd(a)})).stdout, (await step('${b}')).stdout],`,
          `  b: async () => { const r = await agent('branch ${c}'); return [(await shell(${cmd(c)})).stdout, r]; },`,
          `});`,
        );
        break;
      }
      case 3: {
        const name = tag();
        lines.push(`${slot()} = await pipeline('q${key}', { x: 1, y: 2 }, [async (v, k) => (await step('${name}-' + k)).stdout + v, async (v, k) => v + ':' + (await shell(\`sleep 0.01; echo ${name}-2-\${k} >> ledger.txt; echo ${name}-2-\${k}\`)).stdout]);`);
        break;
      }
      case 4:
        lines.push(`${slot()} = await tally({ tag: '${tag()}', n: ${pick(9)} });`);
        break;
      case 5:
        lines.push(`${slot()} = await checkpoint({ name: 'c${tag()}${'x'.repeat(pick(2))}', prompt: 'go on?' });`);
        break;
      case 6: {
        // One chain: each link waits for the one before.
        const [a, b] = [tag(), tag()];
        lines.push(`${slot()} = await shell(${cmd(a)}).then((r) => step('${b}')).then((r) => r.stdout);`);
        break;
      }
      case 7: {
        // Two chains reaching different sites: timing decides which finishes first, never what anything returns.
        const [a, b, c, d] = [tag(), tag(), tag(), tag()];
        lines.push(`{ const [x, y] = await Promise.all([shell(${cmd(a)}).then(() => shell(${cmd(b)})), shell(${cmd(c)}).then(() => shell(${cmd(d)}))]); ${slot()} = [x.stdout, y.stdout]; }`);
        break;
      }
      case 8: {
        // A join, then the same site again.
        const [a, b, c] = [tag(), tag(), tag()];
        lines.push(`{ await Promise.all([step('${a}'), shell(${cmd(b)})]); ${slot()} = (await step('${c}')).stdout; }`);
        break;
      }
      case 9: {
        // A call started without await, awaited later.
        const [a, b] = [tag(), tag()];
        lines.push(`{ const later = (async () => (await shell(${cmd(a)})).stdout)(); const now = (await shell(${cmd(b)})).stdout; ${slot()} = [now, await later]; }`);
        break;
      }
      case 10:
        lines.push(`${slot()} = await agent('question ${tag()}');`, `log('asked ${key}'); phase('phase ${key}');`);
        break;
      default:
        if (!racing && pick(3) === 0) {
          // Issue 10's race, hidden from the preflight behind an array: refused at run time.
          racing = true;
          const [a, b, c, d] = [tag(), tag(), tag(), tag()];
          lines.push(
            `{ const later = [() => step('${b}'), () => step('${d}')];`,
            `  const [x, y] = await Promise.all([shell(${cmd(a)}).then(later[0]), shell(${cmd(c)}).then(later[1])]);`,
            `  ${slot()} = [x.stdout, y.stdout]; }`,
          );
        } else {
          lines.push(`${slot()} = (await evidence({ seed: ${seed}, n: ${key} })).bytes;`);
        }
    }
  }
  lines.push('return out;');
  return { script: lines.join('\n'), racing };
}
