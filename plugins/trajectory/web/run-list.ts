/**
 * The viewer's list page. The Pi session's viewer lists that session's
 * runs; `wfcli view` lists every stored run of the project, grouped by
 * session (sessions in the order of their newest run), each run marked
 * `live` while a live process executes it. Both are newest first.
 */
import type { RunListEntry } from '../../../lib/trajectory/server.js';
import { el, text } from './dom.js';
import { clock } from './format.js';
import { badge } from './run-view.js';

export type Scope = 'session' | 'project';

function runItem(base: string, run: RunListEntry): HTMLElement {
  return el('li', { 'data-run': run.runId }, [
    el('a', { href: `${base}runs/${run.runId}` }, [`${run.workflow} · ${run.runId}`]),
    ' ',
    badge(run.state),
    ' ',
    ...(run.executing === true ? [el('span', { class: 'live' }, ['live']), ' '] : []),
    text(`${run.launchMode} · ${clock(run.createdAt)}`),
  ]);
}

/** Runs by session, in the order each session first appears (the list is newest first). */
function bySession(runs: readonly RunListEntry[]): Map<string, RunListEntry[]> {
  const groups = new Map<string, RunListEntry[]>();
  for (const run of runs) {
    const key = run.sessionId ?? '';
    const group = groups.get(key) ?? [];
    group.push(run);
    groups.set(key, group);
  }
  return groups;
}

function sessionGroup(base: string, sessionId: string, runs: readonly RunListEntry[]): HTMLElement {
  const live = runs.some((run) => run.executing === true);
  return el('section', { class: 'session', 'data-session': sessionId }, [
    el('h2', {}, [`Session ${sessionId}`, ...(live ? [' ', el('span', { class: 'live' }, ['live'])] : [])]),
    el('ul', { class: 'tree top' }, runs.map((run) => runItem(base, run))),
  ]);
}

export async function showRuns(main: HTMLElement, base: string, scope: Scope): Promise<void> {
  const title = el('h1', {}, [scope === 'project' ? 'Workflow runs of this project' : 'Workflow runs of this session']);
  const response = await fetch(`${base}api/runs`);
  if (!response.ok) {
    main.replaceChildren(title, el('p', { class: 'box error', id: 'runs-error' }, [await response.text()]));
    return;
  }
  const runs = (await response.json()) as RunListEntry[];
  const body =
    runs.length === 0
      ? [el('p', { class: 'muted' }, ['No runs yet.'])]
      : scope === 'project'
        ? [...bySession(runs)].map(([sessionId, group]) => sessionGroup(base, sessionId, group))
        : [el('ul', { class: 'tree top', id: 'runs' }, runs.map((run) => runItem(base, run)))];
  main.replaceChildren(title, ...body);
}

/** The Pi session's pages say where to look once the session is gone (issue 37: the hand-over to `wfcli view`). */
export function handOverNote(): HTMLElement {
  return el('footer', { class: 'muted hand-over', id: 'hand-over' }, ['This page ends with its Pi session. ', el('code', {}, ['wfcli view']), ' in the project folder shows every stored run of the project and keeps working after the session ends.']);
}
