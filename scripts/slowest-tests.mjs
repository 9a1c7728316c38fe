// Prints the slowest test files of the vitest JSON reports in a folder (scripts/test-all.sh writes them),
// then a closing line with the number of tests passed and failed in all of them.
//   node scripts/slowest-tests.mjs <folder> [count]
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const [folder = '.', count = '10'] = process.argv.slice(2);
const files = [];
const totals = { passed: 0, failed: 0, skipped: 0 };
for (const name of readdirSync(folder).filter((file) => file.endsWith('.json'))) {
  let report;
  try {
    report = JSON.parse(readFileSync(join(folder, name), 'utf8'));
  } catch {
    continue; // A part that died before writing its report has no times to give.
  }
  totals.passed += report.numPassedTests ?? 0;
  totals.failed += report.numFailedTests ?? 0;
  totals.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const result of report.testResults ?? []) {
    const ms = (result.endTime ?? 0) - (result.startTime ?? 0);
    files.push({ part: name.replace(/\.json$/, ''), file: relative(process.cwd(), result.name), ms, status: result.status });
  }
}
files.sort((a, b) => b.ms - a.ms);
console.log(`slowest ${Math.min(Number(count), files.length)} of ${files.length} test files:`);
for (const { part, file, ms, status } of files.slice(0, Number(count))) {
  console.log(`${(ms / 1000).toFixed(1).padStart(7)} s  ${file} (${part}${status === 'passed' ? '' : `, ${status}`})`);
}
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
