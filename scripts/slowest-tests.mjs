// Prints the slowest test files of the vitest JSON reports in a folder (scripts/test-all.sh writes them),
// then each failed test with the first lines of its error (CI's printout keeps only the end of a long log),
// then a closing line with the number of tests passed and failed in all of them.
//   node scripts/slowest-tests.mjs <folder> [count]
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const [folder = '.', count = '10'] = process.argv.slice(2);
const files = [];
const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];
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
    for (const test of result.assertionResults ?? []) {
      if (test.status === 'failed') failures.push({ file: relative(process.cwd(), result.name), title: test.fullName ?? test.title, messages: test.failureMessages ?? [] });
    }
    if (result.status === 'failed' && !(result.assertionResults ?? []).some((test) => test.status === 'failed')) {
      failures.push({ file: relative(process.cwd(), result.name), title: '(the file failed outside its tests)', messages: [result.message ?? ''] });
    }
  }
}
files.sort((a, b) => b.ms - a.ms);
console.log(`slowest ${Math.min(Number(count), files.length)} of ${files.length} test files:`);
for (const { part, file, ms, status } of files.slice(0, Number(count))) {
  console.log(`${(ms / 1000).toFixed(1).padStart(7)} s  ${file} (${part}${status === 'passed' ? '' : `, ${status}`})`);
}
const FAILURE_LINES = 12;
for (const { file, title, messages } of failures) {
  console.log(`FAILED ${file} > ${title}`);
  const lines = messages.join('\n').replace(/\x1b\[[0-9;]*m/g, '').split('\n').filter((line) => line.trim() !== '');
  for (const line of lines.slice(0, FAILURE_LINES)) console.log(`    ${line.slice(0, 300)}`);
  if (lines.length > FAILURE_LINES) console.log(`    (${lines.length - FAILURE_LINES} more lines: see the part's output above)`);
}
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
