/**
 * `wfcli --help`, every command's `--help`, usage errors (exit 2 with the
 * command's usage) and the README's command table, through `main` in
 * process: none of these start Pi.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMANDS, main } from '../../cli/main.js';
import { captureIo } from './cli-io.js';

const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

describe('wfcli help and usage', () => {
  it('wfcli --help lists every command with its summary, on stdout, exit 0', async () => {
    for (const argv of [['--help'], ['-h'], ['help']]) {
      const io = captureIo();
      expect(await main(argv, io)).toBe(0);
      expect(io.err()).toBe('');
      for (const entry of COMMANDS) expect(io.out()).toContain(`  ${entry.name.padEnd(16)}${entry.summary}\n`);
      expect(io.out()).toContain(`  ${'relay'.padEnd(16)}Start the relay bridge`);
      expect(io.out()).toContain('Exit codes: 0 success, 1 a typed workflow error (CODE: message on\nstderr), 2 a usage error.');
    }
  });

  it.each(COMMANDS.map((entry) => [entry.name, entry] as const))('wfcli %s --help prints its usage, summary and options, exit 0', async (name, entry) => {
    const spec = await entry.load();
    expect(spec.name).toBe(name);
    for (const flag of ['--help', '-h']) {
      const io = captureIo();
      expect(await main([...name.split(' '), flag], io)).toBe(0);
      expect(io.out()).toBe(`usage:\n${spec.usage.map((line) => `  ${line}\n`).join('')}\n${entry.summary}\n\n${spec.help}\n`);
      for (const option of Object.keys(spec.options)) expect(spec.help, `--${option} of ${name} is described`).toContain(`--${option}`);
    }
    const viaHelp = captureIo();
    expect(await main(['help', ...name.split(' ')], viaHelp)).toBe(0);
    expect(viaHelp.out()).toContain(entry.summary);
  });

  it('no command, an unknown command, an unknown flag, a missing or extra argument are usage errors (exit 2)', async () => {
    const cases: [readonly string[], RegExp][] = [
      [[], /^usage: wfcli <command>/],
      [['frobnicate'], /^wfcli: unknown command "frobnicate"\nusage: wfcli <command>/],
      [['status'], /^wfcli status: missing argument: wfcli status <run-id> \[--json\]\nusage:\n {2}wfcli status <run-id> \[--json\]\n$/],
      [['status', 'a', 'b'], /^wfcli status: unexpected argument "b"\n/],
      [['list', '--frob'], /^wfcli list: Unknown option '--frob'/],
      [['stop', 'wf-x', '--', 'more'], /^wfcli stop: "--" is not accepted here\n/],
      [['run'], /^wfcli run: give a workflow name or --script <file>\n/],
      [['run', 'brief', '--script', 'x.js'], /^wfcli run: give a workflow name or --script, not both\n/],
      [['run', 'brief', '--name', 'other'], /^wfcli run: --name names a --script run/],
      [['run', '--script', 'x.js', '--approve', '--no-approve'], /^wfcli run: --approve and --no-approve exclude each other\n/],
      [['doctor', '--prompt', 'hi'], /^wfcli doctor: --prompt goes with --agent-options\n/],
      [['doctor', 'cleanup', '--older-than-days', 'soon'], /^wfcli doctor cleanup: --older-than-days takes a number of days, not "soon"\n/],
      [['inspect', '--json', '--summary'], /^wfcli inspect: --json and --summary exclude each other\n/],
      [['transcript', 'file.jsonl', '--tail', '0'], /^wfcli transcript: --tail takes a positive whole number, not "0"\n/],
      [['export', 'brief', '--name', '../evil'], /^wfcli export: "..\/evil" cannot be a command name/],
    ];
    for (const [argv, message] of cases) {
      const io = captureIo();
      expect(await main(argv, io), argv.join(' ')).toBe(2);
      expect(io.err(), argv.join(' ')).toMatch(message);
      expect(io.out()).toBe('');
    }
  });

  it('typed errors that need no Pi session: exit 1 with CODE: message, before anything starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfcli-errors-'));
    try {
      const cases: [readonly string[], RegExp][] = [
        [['run', '--script', 'missing.js'], /^INVALID_METADATA: Cannot read workflow script .*missing\.js: /],
        [['run', 'brief', '--input', '{nope'], /^INVALID_METADATA: --input is not valid JSON: /],
        [['doctor', '--agent-options', '[1]'], /^INVALID_METADATA: --agent-options must be a JSON object of agent options\n$/],
        [['status', 'wf-000000000-00000000'], /^RUN_NOT_FOUND: No run wf-000000000-00000000 in this project\n$/],
        [['resume', '../escape'], /^RUN_NOT_FOUND: invalid run id "..\/escape"\n$/],
        [['list', '--session', 'bad id'], /^RUN_NOT_FOUND: invalid session id "bad id"\n$/],
        [['transcript', 'missing.jsonl'], /^INVALID_METADATA: Cannot read session file .*missing\.jsonl: /],
      ];
      for (const [argv, message] of cases) {
        const io = captureIo(dir, { home: dir });
        expect(await main(argv, io), argv.join(' ')).toBe(1);
        expect(io.err(), argv.join(' ')).toMatch(message);
      }
      const empty = captureIo(dir, { home: dir });
      expect(await main(['inspect'], empty)).toBe(0);
      expect(empty.out()).toBe('no runs in this project\n');
      const stop = captureIo(dir, { home: dir });
      expect(await main(['stop', 'wf-000000000-00000000'], stop)).toBe(1);
      expect(stop.err()).toBe('unknown_run: run wf-000000000-00000000 is not available to stop: there is no such run in this project\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the README command table lists every command', () => {
    const table = README.slice(README.indexOf('## wfcli commands'));
    for (const name of [...COMMANDS.map((entry) => entry.name), 'relay']) expect(table, name).toMatch(new RegExp(`^\\| \`wfcli ${name}[ \`]`, 'm'));
  });
});
