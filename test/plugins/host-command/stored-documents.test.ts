/**
 * Stored run documents in the dashboard (spec 1 "/workflow command" rule 5,
 * "Run and its storage"): the run script, effective system prompts and
 * completed top-level agent results of real runs open read-only in the
 * editor dialog, and what the editor hands back is never written. Agent
 * prompts are not stored, so nothing offers them; unreadable pieces are
 * named, never hide the rest.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExtensionAPI, ExtensionCommandContext } from '@earendil-works/pi-coding-agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../kernel/index.js';
import { recordSystemPrompt } from '../../../kernel/engine/system-prompts.js';
import { agentDocuments } from '../../../plugins/host/dashboard/documents.js';
import type { FlowDeps } from '../../../plugins/host/command/dashboard-flow.js';
import { openPicker } from '../../../plugins/host/command/picker.js';
import { readRunFiles } from '../../../lib/run-files.js';
import type { WorkflowHostView } from '../../../plugins/host/view.js';
import { createHarness, type Harness } from '../../support/engine-harness.js';
import { scriptedDialogs, type Answer, type ScriptedDialogs } from './dialogs.js';
import { agent } from './summaries.js';

let h: Harness;
let view: WorkflowHostView;
beforeAll(() => {
  h = createHarness();
  view = { engine: h.engine, cwd: h.cwd, sessionId: h.sessionId, agentDir: h.agentDir, projectTrusted: false, settingsPath: () => '', watch: () => undefined };
});
afterAll(async () => {
  await h.close();
});

async function picker(answers: Answer[], extra: Partial<FlowDeps> = {}): Promise<ScriptedDialogs> {
  const ui = scriptedDialogs(answers);
  const ctx = { mode: 'rpc', hasUI: true, ui } as unknown as ExtensionCommandContext;
  await openPicker({ pi: {} as ExtensionAPI, view, ctx, ...extra });
  expect(ui.left()).toBe(0);
  return ui;
}

const agentIdOf = (runDir: string, label: string): string => {
  const found = Object.values(h.snapshot(runDir).agents).find((entry) => entry.label === label);
  if (found === undefined) throw new Error(`no agent ${label}`);
  return found.id;
};

describe('reading a run directory', () => {
  it('reads the script, agent results, system prompts and session references, and names what it cannot read', async () => {
    const done = await h.run(`const a = await agent('first task', { label: 'one' }); await shell('true'); return a;`);
    const id = agentIdOf(done.runDir, 'one');
    const sha = recordSystemPrompt(done.runDir, { agentId: id, nativeSessionId: null, attempt: 1, turn: 1 }, 'You are one.');
    recordSystemPrompt(done.runDir, { agentId: id, nativeSessionId: null, attempt: 1, turn: 2 }, 'Lost body.');
    const lost = readFileSync(join(done.runDir, 'system-prompts.json'), 'utf8').trim().split('\n').at(-1) ?? '';
    rmSync(join(done.runDir, '.system-prompts', `${JSON.parse(lost).sha256}.txt`));

    const files = readRunFiles(done.runDir);
    expect(files.source).toBe(readFileSync(join(done.runDir, 'workflow.js'), 'utf8'));
    // Only agent records: the shell record is not a result.
    expect([...files.results]).toEqual([[id, 'echo:first task']]);
    expect(files.systemPrompts).toEqual([
      { agentId: id, attempt: 1, turn: 1, sha256: sha, text: 'You are one.' },
      { agentId: id, attempt: 1, turn: 2, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
    expect(files.sessions.get(id)).toEqual([{ attempt: 1, reference: { transport: 'echo', label: expect.any(String) } }]);
    expect(files.problems).toEqual([]);

    appendFileSync(join(done.runDir, 'system-prompts.json'), `${JSON.stringify({ agentId: id, attempt: 1, turn: 1, sha256: '../../etc/passwd' })}\n{"torn`);
    expect(readRunFiles(done.runDir).problems).toEqual([expect.stringContaining('system-prompts.json has an invalid record'), 'system-prompts.json has 1 unreadable line(s)']);
    expect(readRunFiles(join(h.dir, 'nowhere'))).toMatchObject({ results: new Map(), systemPrompts: [], problems: ['workflow.js cannot be read', expect.stringContaining('snapshot.json cannot be read')] });
  });

  it('offers results of completed top-level agents only, and never an agent prompt', () => {
    const files = { systemPrompts: [], results: new Map<string, JsonValue>([['a', { x: 1 }], ['child', 'text']]), sessions: new Map(), problems: [] };
    expect(agentDocuments(agent({ id: 'a', label: 'a' }), files).map((entry) => [entry.label, entry.text])).toEqual([['Open result', '{\n  "x": 1\n}']]);
    expect(agentDocuments(agent({ id: 'child', label: 'c', parentId: 'a' }), files)).toEqual([]);
    expect(agentDocuments(agent({ id: 'a', label: 'a', state: 'running' }), files)).toEqual([]);
  });
});

describe('opening documents from the dashboard', () => {
  it('opens the script, a system prompt and a result read-only and writes nothing back', async () => {
    const done = await h.run(`phase('p'); return await agent('review it', { label: 'solo' });`);
    const id = agentIdOf(done.runDir, 'solo');
    recordSystemPrompt(done.runDir, { agentId: id, nativeSessionId: 'n1', attempt: 1, turn: 1 }, 'You are solo.');
    const script = join(done.runDir, 'workflow.js');
    const before = readFileSync(script, 'utf8');
    const ui = await picker([
      { select: new RegExp(`^completed · test · ${done.runId}`) },
      { select: /^Workflow test/ },
      { select: 'Open run script (workflow.js)' },
      { select: /solo · completed/ },
      { select: 'Open system prompt (attempt 1)' },
      { select: /solo · completed/ },
      { select: 'Open result' },
      'cancel',
      'cancel',
    ]);
    expect(ui.opened).toEqual([
      { title: `Run script of ${done.runId} (read-only: changes are discarded)`, text: before },
      { title: 'System prompt of solo, attempt 1 (read-only: changes are discarded)', text: 'You are solo.' },
      { title: 'Result of solo (read-only: changes are discarded)', text: 'echo:review it' },
    ]);
    expect(readFileSync(script, 'utf8')).toBe(before);
    expect(statSync(script).mode & 0o777).toBe(0o400);
    expect(ui.screens.find((screen) => screen.title.startsWith('solo'))?.title).toContain('Agent prompts are not stored');
  });

  it("opens each attempt's transcript (its session file) read-only, and names one that cannot be read", async () => {
    const done = await h.run(`return await agent('look around', { label: 'reader' });`);
    const id = agentIdOf(done.runDir, 'reader');
    const file = join(h.dir, 'reader-session.jsonl');
    const lines = [
      { type: 'session', version: 3, id: 's1', timestamp: '2026-01-01T00:00:00.000Z', cwd: h.cwd },
      { type: 'message', id: 'a', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: 'look around' } },
      { type: 'message', id: 'b', parentId: 'a', timestamp: '2026-01-01T00:00:02.000Z', message: { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'README.md' } }] } },
      { type: 'message', id: 'c', parentId: 'b', timestamp: '2026-01-01T00:00:03.000Z', message: { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'text', text: '# Readme\x1b[2J' }], isError: false } },
    ];
    writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n'));
    const fifo = join(h.dir, 'reader-fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    const snapshotFile = join(done.runDir, 'snapshot.json');
    const snapshot = JSON.parse(readFileSync(snapshotFile, 'utf8')) as { agentSessions: Record<string, unknown> };
    snapshot.agentSessions[id] = [
      { attempt: 1, transport: 'pi', sessionId: 's1', sessionFile: file },
      { attempt: 2, transport: 'pi', sessionId: 's2', sessionFile: fifo },
      { attempt: 3, transport: 'pi', sessionId: 's3', sessionFile: 'relative.jsonl' },
    ];
    writeFileSync(snapshotFile, JSON.stringify(snapshot));
    const ui = await picker([
      { select: new RegExp(done.runId) },
      { select: /reader · completed/ },
      { select: 'Open transcript (attempt 1)' },
      { select: /reader · completed/ },
      { select: 'Open transcript (attempt 2)' },
      'cancel',
      'cancel',
    ]);
    expect(ui.opened).toEqual([{ title: `Transcript of reader, attempt 1: ${file} (read-only: changes are discarded)`, text: expect.stringContaining('── user\nlook around') }]);
    expect(ui.opened[0]?.text).toContain('→ read {"path":"README.md"}');
    // What a tool wrote is shown, never acted on: the editor gets the escape as text.
    expect(ui.opened[0]?.text).toContain('── read result\n# Readme\\x1b[2J');
    expect(ui.opened[0]?.text).not.toContain('\x1b');
    expect(ui.notes).toContainEqual({ message: expect.stringMatching(/Cannot read the transcript .*reader-fifo\.jsonl: .* is not a regular file/), level: 'error' });
    // A relative path is never offered.
    expect(ui.screens.flatMap((screen) => screen.options)).not.toContain('Open transcript (attempt 3)');
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(4);
  });

  it('finds the files of a failed run (no result.json) through the engine', async () => {
    const failed = await h.run(`await agent('x', { label: 'lone' }); throw new Error('boom');`);
    const opened = await picker([{ select: new RegExp(failed.runId) }, { select: /^Workflow test/ }, { select: 'Open run script (workflow.js)' }, 'cancel', 'cancel']);
    expect(opened.opened.map((entry) => entry.text)).toEqual([readFileSync(join(failed.runDir, 'workflow.js'), 'utf8')]);

    const missing = await picker([{ select: new RegExp(failed.runId) }, { select: /^Workflow test/ }, 'cancel', { select: /lone · completed/ }, 'cancel', 'cancel', 'cancel'], {
      runDirectory: () => undefined,
    });
    expect(missing.screens[2]?.options).not.toContain('Open run script (workflow.js)');
    expect(missing.screens[4]?.title).toContain('the run directory is not known');
  });
});
