/**
 * A script's log() messages in `wfcli run` through the built CLI and a real
 * headless Pi session: without a terminal each message is a `log` line on
 * stderr in order with the phases and states, escaped and bounded; on a
 * terminal each is printed above the redrawn progress line, cut to one row.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellQuote } from '../../cli/export.js';
import { createPiHome, piEnv, runWfcli, WFCLI, type PiHome } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

/** A message with an escape sequence, a carriage return and a fake row, then one of 4 KB. */
const SCRIPT = `phase('survey');
log('found \\u001b[31mred\\u001b[0m\\rover\\nfake row');
phase('report');
log('z'.repeat(5000));
return 'done';
`;

describe('wfcli log lines', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    writeFileSync(join(pi.cwd, 'logs.js'), SCRIPT);
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  it('without a terminal, prints each message as a `[+Ns] log` line in order with the phases, escaped and cut at 1,000 characters', async () => {
    const ran = await runWfcli(pi, ['run', '--script', 'logs.js']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toBe('"done"\n');
    const lines = ran.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^run wf-\S+$/);
    for (const line of lines.slice(1)) expect(line).toMatch(/^\[\+\d+\.\ds\] /);
    expect(lines.slice(1).map((line) => line.replace(/^\[\+\d+\.\ds\] /, ''))).toEqual([
      'phase survey',
      'log found \\x1b[31mred\\x1b[0m\\rover\\nfake row',
      'phase report',
      `log ${'z'.repeat(999)}…`,
      'run completed',
    ]);
  });

  it('on a terminal, prints each message above the progress line, cut to the width, never a raw control character', async () => {
    // `script` gives the process a pseudo-terminal of 60 columns; its output is the terminal's.
    const command = `stty cols 60; exec ${[process.execPath, WFCLI, 'run', '--script', 'logs.js'].map(shellQuote).join(' ')}`;
    const { stdout } = await promisify(execFile)('script', ['-qefc', command, '/dev/null'], { cwd: pi.cwd, env: piEnv(pi) });
    const logs = stdout.split('\r\x1b[2K').filter((part) => part.startsWith('log '));
    expect(logs).toEqual(['log found \\x1b[31mred\\x1b[0m\\rover\\nfake row\r\n', `log ${'z'.repeat(54)}…\r\n`]);
    expect(stdout).toContain('"done"');
  });
});
