/**
 * The viewer's browser app (bundled with its Markdown renderer and
 * sanitizer to dist/trajectory/app.js). Three pages: the run list (run-list.ts);
 * a live run page that follows the run over Server-Sent Events, with the
 * run's controls, search, and the transcript of the attempt the user opens
 * (polled while it changes); and a report (wfcli report, the page's
 * Download report), which reads everything from its own inert JSON block
 * and makes no request.
 */
import type { TrajectoryModel } from '../../../lib/trajectory/model.js';
import type { ReportData } from '../../../lib/trajectory/report.js';
import type { TranscriptView } from '../../../lib/trajectory/transcript.js';
import { renderControls } from './controls.js';
import { el } from './dom.js';
import { clock } from './format.js';
import { ACTIVE, renderRun } from './run-view.js';
import { handOverNote, showRuns } from './run-list.js';
import { renderHits, searchModel, searchTranscripts, transcriptHits } from './search.js';
import { renderTranscript } from './transcript-view.js';

interface Page {
  readonly body: HTMLElement;
  readonly search: HTMLInputElement;
  readonly results: HTMLElement;
  readonly transcripts: HTMLElement;
}

/** The parts of a run page that stay across redraws (the search box keeps its text and focus). */
function skeleton(main: HTMLElement, top: readonly Node[]): Page {
  const search = el('input', { type: 'search', id: 'search-input', placeholder: 'Search agents, events and transcripts', 'aria-label': 'Search' });
  const results = el('div', { id: 'search-results' });
  const body = el('div', { id: 'run-body' }, [el('p', { class: 'muted' }, ['Loading…'])]);
  const transcripts = el('section', { id: 'transcripts' });
  main.replaceChildren(...top, el('div', { class: 'toolbar' }, [search]), results, body, transcripts);
  return { body, search, results, transcripts };
}

function labelOf(model: TrajectoryModel | undefined, agentId: string): string {
  return model?.agents.find((agent) => agent.id === agentId)?.label ?? agentId;
}

/** Calls `run` 200 ms after the last keystroke. */
function onSearch(input: HTMLInputElement, run: (query: string) => void): void {
  let timer: number | undefined;
  input.addEventListener('input', () => {
    if (timer !== undefined) window.clearTimeout(timer);
    timer = window.setTimeout(() => run(input.value.trim()), 200);
  });
}

function followRun(main: HTMLElement, base: string, runId: string): void {
  const controls = el('div', { id: 'controls', class: 'controls' });
  const download = el('p', { class: 'downloads' }, [
    el('a', { href: `${base}api/runs/${encodeURIComponent(runId)}/report`, id: 'download-report', download: `${runId}.html` }, ['Download report']),
    ' · ',
    el('a', { href: `${base}api/runs/${encodeURIComponent(runId)}/report?transcripts=0`, id: 'download-report-bare', download: `${runId}.html` }, ['without transcripts']),
  ]);
  const page = skeleton(main, [el('p', {}, [el('a', { href: base }, ['← all runs'])]), controls, download]);
  let latest: TrajectoryModel | undefined;
  let opened: { agentId: string; attempt: number; tag?: string; view?: TranscriptView } | undefined;
  const draw = (): void => {
    if (latest) page.body.replaceChildren(renderRun(latest, Date.now()));
  };
  const drawTranscript = (): void => {
    if (opened?.view === undefined) return;
    page.transcripts.replaceChildren(el('h2', {}, ['Transcript']), renderTranscript(opened.view, labelOf(latest, opened.agentId), page.search.value.trim()));
  };
  const loadTranscript = async (): Promise<void> => {
    const target = opened;
    if (target === undefined) return;
    const query = new URLSearchParams({ agent: target.agentId, attempt: String(target.attempt) });
    const response = await fetch(`${base}api/runs/${encodeURIComponent(runId)}/transcript?${query}`, { headers: target.tag === undefined ? {} : { 'if-none-match': target.tag } });
    if (opened !== target || response.status === 304) return;
    if (!response.ok) {
      page.transcripts.replaceChildren(el('h2', {}, ['Transcript']), el('p', { class: 'box error' }, [await response.text()]));
      return;
    }
    const tag = response.headers.get('etag');
    opened = { ...target, ...(tag === null ? {} : { tag }), view: (await response.json()) as TranscriptView };
    drawTranscript();
  };
  main.addEventListener('click', (event) => {
    const button = (event.target as Element).closest('button.open-transcript');
    if (!(button instanceof HTMLElement)) return;
    opened = { agentId: button.dataset['agent'] ?? '', attempt: Number(button.dataset['attempt']) };
    page.transcripts.replaceChildren(el('h2', {}, ['Transcript']), el('p', { class: 'muted' }, ['Loading…']));
    void loadTranscript().then(() => page.transcripts.scrollIntoView());
  });
  onSearch(page.search, (query) => {
    if (!latest) return;
    const local = searchModel(latest, query);
    page.results.replaceChildren(...renderHits(local, query));
    drawTranscript();
    if (query === '') return;
    void fetch(`${base}api/runs/${encodeURIComponent(runId)}/search?${new URLSearchParams({ q: query })}`)
      .then((response) => response.json() as Promise<{ agentId: string; attempt: number; matches: number }[]>)
      .then((found) => {
        if (latest && page.search.value.trim() === query) page.results.replaceChildren(...renderHits([...local, ...transcriptHits(latest, found)], query));
      });
  });
  const source = new EventSource(`${base}api/runs/${runId}/stream`);
  source.onmessage = (message: MessageEvent<string>) => {
    latest = JSON.parse(message.data) as TrajectoryModel;
    draw();
    renderControls(controls, base, runId, latest.controls ?? [], latest.controlNote);
    document.body.dataset['updates'] = String(Number(document.body.dataset['updates'] ?? '0') + 1);
    // A transcript of an attempt still at work grows: look again (the server answers 304 while the file is unchanged).
    if (opened !== undefined) void loadTranscript();
  };
  source.onerror = () => {
    if (!latest) page.body.replaceChildren(el('p', { class: 'muted' }, [`This run cannot be shown (${document.body.dataset['scope'] === 'project' ? 'it is not a readable run of this project' : 'it belongs to another session'}, or the viewer stopped).`]));
  };
  // Running bars grow with the clock between updates; an open transcript of a running attempt is polled.
  setInterval(() => {
    if (!latest?.run.executing || !ACTIVE.has(latest.run.state)) return;
    draw();
    const agent = opened === undefined ? undefined : latest.agents.find((entry) => entry.id === opened?.agentId);
    if (agent?.attempts.some((attempt) => attempt.attempt === opened?.attempt && attempt.status === 'running')) void loadTranscript();
  }, 1000);
}

/** A report: everything from the page's own data block, drawn once; no request is made. */
function showReport(main: HTMLElement): void {
  const block = document.getElementById('report-data');
  const data = JSON.parse(block?.textContent ?? '{}') as ReportData;
  const transcripts = data.transcripts ?? [];
  const note = data.transcripts === undefined ? 'Transcripts were left out of this report.' : `${transcripts.length} transcript(s).`;
  const page = skeleton(main, [el('p', { class: 'muted' }, [`Report of run ${data.model.run.runId}, made ${clock(data.generatedAt)}. ${note}`])]);
  page.body.replaceChildren(renderRun(data.model, Date.parse(data.generatedAt)));
  const drawTranscripts = (query: string): void => {
    page.transcripts.replaceChildren(el('h2', {}, ['Transcripts']), ...transcripts.map((view) => renderTranscript(view, labelOf(data.model, view.agentId), query)));
  };
  drawTranscripts('');
  main.addEventListener('click', (event) => {
    const button = (event.target as Element).closest('button.open-transcript');
    if (!(button instanceof HTMLElement)) return;
    const target = Array.from(page.transcripts.querySelectorAll<HTMLElement>('section.transcript')).find((section) => section.dataset['agent'] === button.dataset['agent'] && section.dataset['attempt'] === button.dataset['attempt']);
    target?.scrollIntoView();
  });
  onSearch(page.search, (query) => {
    page.results.replaceChildren(...renderHits([...searchModel(data.model, query), ...transcriptHits(data.model, query === '' ? [] : searchTranscripts(transcripts, query))], query));
    drawTranscripts(query);
  });
}

function start(): void {
  const main = document.getElementById('app');
  if (!main) return;
  const view = document.body.dataset['view'];
  if (view === 'report') return showReport(main);
  const base = document.body.dataset['base'];
  if (base === undefined) return;
  const scope = document.body.dataset['scope'] === 'project' ? 'project' : 'session';
  if (scope === 'session') main.after(handOverNote());
  if (view === 'run') followRun(main, base, decodeURIComponent(location.pathname.split('/').pop() ?? ''));
  else void showRuns(main, base, scope);
}

if (typeof document !== 'undefined') start();
