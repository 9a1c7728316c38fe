/**
 * A shareable report of one run: one self-contained HTML file that opens
 * anywhere without a network (file://, an attachment): the viewer's app and
 * stylesheet inline, the run model and, unless left out, every attempt's
 * transcript as an inert JSON block the app reads. A strict CSP in a meta
 * tag allows exactly the inline script and stylesheet (by SHA-256), images
 * only from data: URLs, and no connection, frame, form or base: the page
 * can make no request. Reports hold what the transcripts hold (prompts,
 * tool output, secrets an agent saw): docs/trajectory.md says so.
 */
import { createHash } from 'node:crypto';
import type { TrajectoryModel } from './model.js';
import { TRAJECTORY_CSS, trajectoryAppScript } from './page.js';
import { buildTranscript, transcriptFiles, type TranscriptView } from './transcript.js';

/** Format of the report's data block (`#report-data`). */
export const REPORT_DATA_VERSION = 1;

export interface ReportData {
  readonly v: typeof REPORT_DATA_VERSION;
  readonly generatedAt: string;
  readonly model: TrajectoryModel;
  /** Undefined when transcripts were left out (`--no-transcripts`). */
  readonly transcripts?: readonly TranscriptView[];
}

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** Inline script text can never close its element or open an HTML comment. */
function inlineScript(source: string): string {
  return source.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** JSON inside `<script type="application/json">`: `<` escaped, so no text ends the block. */
function inlineJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The run's transcripts, in agent order of the model (attempts ascending). */
export function runTranscripts(model: TrajectoryModel, runDir: string): TranscriptView[] {
  const files = transcriptFiles(runDir);
  const order = new Map(model.agents.map((agent, index) => [agent.id, index]));
  return files
    .sort((a, b) => (order.get(a.agentId) ?? Number.MAX_SAFE_INTEGER) - (order.get(b.agentId) ?? Number.MAX_SAFE_INTEGER) || a.attempt - b.attempt)
    .flatMap((entry) => buildTranscript(runDir, entry.agentId, entry.attempt) ?? []);
}

export function reportHtml(data: ReportData): string {
  const script = inlineScript(trajectoryAppScript());
  const style = TRAJECTORY_CSS;
  const csp = `default-src 'none'; script-src ${sha256(script)}; style-src ${sha256(style)}; img-src data:; base-uri 'none'; form-action 'none'`;
  const { run } = data.model;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(`Workflow ${run.workflow} · ${run.runId}`)}</title>
<style>${style}</style>
</head>
<body data-view="report">
<main id="app"><noscript>This report needs JavaScript to draw the run.</noscript></main>
<script type="application/json" id="report-data">${inlineJson(data)}</script>
<script type="module">${script}</script>
</body>
</html>
`;
}
