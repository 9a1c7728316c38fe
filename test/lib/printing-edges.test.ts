/**
 * Where stored values become text for a terminal (wfcli's text views, the
 * progress line, the /workflow dashboard and picker, the background widget
 * and its receipts): a workflow name, phase, label and message holding ESC,
 * BEL, CR, newlines, C1 and bidi controls come out escaped, each on its own
 * line. The real CLI is covered by test/e2e/wfcli-escapes.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { formatDoctor } from '../../cli/doctor-text.js';
import { buildDoctorReport } from '../../cli/doctor-report.js';
import { formatRunRow, formatStatus } from '../../cli/format.js';
import { progressLine } from '../../cli/progress.js';
import { receiptOf, receiptText, widgetLines } from '../../plugins/background-widget/view.js';
import { rootActions } from '../../plugins/host/dashboard/actions.js';
import { runLine } from '../../plugins/host/dashboard/describe.js';
import { runDetails } from '../../plugins/host/dashboard/details.js';
import { dashboardRows } from '../../plugins/host/dashboard/tree.js';
import { agent, summary } from '../plugins/host-command/summaries.js';

const EVIL = 'a\x1b[31mb\x07c\nd\re\u009bf\u202eg';
const SHOWN = 'a\\x1b[31mb\\x07c\\nd\\re\\x9bf\\u202eg';
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

const run = summary({
  workflow: { name: EVIL },
  phase: EVIL,
  state: 'failed',
  failure: { code: 'SCRIPT_ERROR', message: EVIL },
  agents: [agent({ id: 'a1', label: EVIL, path: [EVIL] })],
  checkpoints: [{ name: EVIL, state: 'awaiting', prompt: `line one\n${EVIL}` }],
});

/** Each line of `lines` free of controls and holding the escaped value where it shows one. */
function safeLines(lines: readonly string[]): void {
  for (const line of lines) expect(line, JSON.stringify(line)).not.toMatch(CONTROL);
}

describe('text for a terminal', () => {
  it('wfcli: status rows, list rows and the progress line', () => {
    const status = formatStatus(run).trimEnd().split('\n');
    safeLines(status);
    expect(status).toEqual(expect.arrayContaining([`run wf-1  ${SHOWN}`, `  phase      ${SHOWN}`, `  failure    SCRIPT_ERROR: ${SHOWN}`, `  checkpoint ${SHOWN} awaiting`]));
    expect(status.some((line) => line.startsWith(`    ${SHOWN} (${SHOWN}): `))).toBe(true);
    safeLines([formatRunRow(run)]);
    expect(formatRunRow(run)).toContain(SHOWN);
    const progress = progressLine({ name: EVIL, runId: 'wf-1', state: 'running', phase: EVIL, agents: [EVIL], elapsedMs: 0 }, 500);
    expect(progress).toBe(`${SHOWN} wf-1 · running · 0s · phase ${SHOWN} · 1 agent running: ${SHOWN}`);
  });

  it('wfcli doctor: paths and messages', () => {
    const text = formatDoctor(
      buildDoctorReport({
        cwd: `/p/${EVIL}`,
        agentDir: '/agent',
        settingsPath: '/agent/s.json',
        globalPath: '/agent/s.json',
        projectPath: `/p/${EVIL}/.pi/pi-extensible-workflows/settings.json`,
        trust: { state: 'trusted', decidedBy: 'flag' },
        rawSettings: [],
        functions: [],
        dynamicAliases: [],
        activeTools: [EVIL],
        extensions: [],
        skills: [],
        problems: [{ code: 'CONFIG_ERROR', severity: 'error', message: EVIL }],
      }),
    );
    safeLines(text.split('\n'));
    expect(text).toContain(`cwd          /p/${SHOWN}`);
    expect(text).toContain(`error CONFIG_ERROR: ${SHOWN}`);
  });

  it('Pi: the picker line, the dashboard tree and details, action confirmations', () => {
    safeLines([runLine(run)]);
    expect(runLine(run)).toBe(`failed · ${SHOWN} · wf-1 · phase ${SHOWN} · 1 agent: 1 completed · SCRIPT_ERROR`);
    const rows = dashboardRows(run).map((row) => row.text);
    safeLines(rows);
    expect(rows[0]).toBe(`Workflow ${SHOWN} · failed · phase ${SHOWN} · 1 agent: 1 completed`);
    expect(rows).toContain(`${SHOWN} · completed`);
    safeLines(runDetails(run));
    expect(runDetails(run)).toContain(`Failed: SCRIPT_ERROR ${SHOWN}`);
    const approve = rootActions(run).find((action) => action.kind === 'checkpoint');
    expect(approve?.label).toBe(`Approve checkpoint "${SHOWN}"`);
    // A confirmation may span lines (the prompt's own), never with a control in them; the action keeps the real name.
    safeLines(approve?.confirm?.split('\n') ?? []);
    expect(approve).toMatchObject({ confirm: `Checkpoint "${SHOWN}": line one\n${'a\\x1b[31mb\\x07c'}\nd\\re\\x9bf\\u202eg\nApprove it? The decision is final.`, name: EVIL });
  });

  it('Pi: the background widget and its receipt', () => {
    const { failure: _ended, ...live } = run;
    const lines = widgetLines([{ ...live, state: 'running' }]);
    safeLines(lines);
    expect(lines[1]).toContain(`◆ ${SHOWN} · wf-1 · running · phase ${SHOWN}`);
    const receipt = receiptText(receiptOf(run));
    safeLines([receipt]);
    expect(receipt).toContain(`Workflow ${SHOWN} (wf-1) failed: SCRIPT_ERROR`);
    // The stored receipt keeps the exact name.
    expect(receiptOf(run).workflow).toBe(EVIL);
  });
});
