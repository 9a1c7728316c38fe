/**
 * No control character of a name, label, phase, message or path reaches the
 * terminal through the real `wfcli` (lib/terminal-text.ts): a run whose
 * workflow name holds ESC, BEL, CR, a newline and a bidi override, with such
 * a phase, agent label and failure message, is shown escaped by `run`,
 * `list`, `status`, `inspect` and `doctor cleanup` (its dry run); a session file with them
 * by `transcript`. `--json` keeps the exact values.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPiHome, runWfcli, type PiHome, type PiResult } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const NAME = 'evil\x1b[31mred\x07bell\nsecond line\r\u202eevil';
const SHOWN_NAME = 'evil\\x1b[31mred\\x07bell\\nsecond line\\r\\u202eevil';
const PHASE = 'ph\x1b[2Jase';
const LABEL = 'lab\x1b]0;title\x07el\nx';
const MESSAGE = 'boom\x1b[1m\x9b2J';
/** Any control a terminal acts on; line feeds between lines are the output's own and are stripped before the check. */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

describe('wfcli escapes what it prints', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  let runId: string;
  let launched: PiResult;
  const wfcli = (args: readonly string[]): Promise<PiResult> => runWfcli(pi, args);
  const shownSafely = (text: string): void => {
    expect(text).not.toMatch(CONTROL);
  };

  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    writeFileSync(join(pi.cwd, 'evil.js'), `phase(${JSON.stringify(PHASE)});\nawait agent('Escaped agent', { label: ${JSON.stringify(LABEL)} });\nthrow new Error(${JSON.stringify(MESSAGE)});\n`);
    launched = await wfcli(['run', '--script', 'evil.js', '--name', NAME]);
    runId = /^run (wf-\S+)$/m.exec(launched.stderr)?.[1] ?? '';
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  it('run: the failure message is shown escaped on stderr', () => {
    expect(launched.code, launched.stderr).toBe(1);
    expect(runId).not.toBe('');
    shownSafely(launched.stderr);
    expect(launched.stderr).toContain('boom\\x1b[1m\\x9b2J');
  });

  it('list shows its header and one line per run, the name escaped; --json keeps it exact', async () => {
    const list = await wfcli(['list']);
    expect(list.code, list.stderr).toBe(0);
    shownSafely(list.stdout);
    expect(list.stdout.trimEnd().split('\n')).toEqual([expect.stringMatching(/^RUN +STATE +WORKFLOW +SESSION +UPDATED +AGENTS$/), expect.stringContaining(`failed            ${SHOWN_NAME}`)]);

    const json = await wfcli(['list', '--json']);
    expect((JSON.parse(json.stdout) as { workflow: { name: string } }[])[0]?.workflow.name).toBe(NAME);
  });

  it('status shows the name, phase, label and failure escaped, one line per field', async () => {
    const status = await wfcli(['status', runId]);
    expect(status.code, status.stderr).toBe(0);
    shownSafely(status.stdout);
    expect(status.stdout).toContain(`run ${runId}  ${SHOWN_NAME}\n`);
    expect(status.stdout).toContain('  phase      ph\\x1b[2Jase\n');
    expect(status.stdout).toContain('    lab\\x1b]0;title\\x07el\\nx: ');
    expect(status.stdout).toMatch(/ {2}failure +\S+: .*boom\\x1b\[1m\\x9b2J\n/);
  });

  it.each([{ args: ['inspect'] }, { args: ['inspect', '--summary'] }, { args: ['doctor', 'cleanup'] }])('wfcli $args shows every value escaped', async ({ args }) => {
    const result = await wfcli(args);
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    shownSafely(result.stdout);
    shownSafely(result.stderr);
    expect(result.stdout, args.join(' ')).toContain(args[0] === 'doctor' ? runId : SHOWN_NAME);
  });

  it('transcript shows a session file\'s texts and names escaped', async () => {
    const at = '2026-01-02T03:04:05.000Z';
    const entry = (id: string, parentId: string | null, message: object) => JSON.stringify({ type: 'message', id, parentId, timestamp: at, message: { timestamp: 0, ...message } });
    const file = join(pi.home, 'session.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({ type: 'session', version: 3, id: 'sess\x1b[8m', timestamp: at, cwd: '/project\x07' }),
        entry('u1', null, { role: 'user', content: 'hello\x1b[2J\r\nworld\x07' }),
        entry('a1', 'u1', { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'to\x1bol', arguments: { text: 'x\u202ey' } }] }),
        '',
      ].join('\n'),
    );
    const transcript = await wfcli(['transcript', file]);
    expect(transcript.code, transcript.stderr).toBe(0);
    shownSafely(transcript.stdout);
    expect(transcript.stdout).toContain('session sess\\x1b[8m (version 3), cwd /project\\x07');
    expect(transcript.stdout).toContain('user: hello\\x1b[2J\n    world\\x07');
    expect(transcript.stdout).toContain('-> to\\x1bol {"text":"x\\u202ey"}');
  });
});
