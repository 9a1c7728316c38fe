/**
 * The viewer page: an HTML shell with no inline script or style (the CSP
 * allows only the server's own files), its stylesheet, and the browser app
 * bundled by the build to `dist/trajectory/app.js` (plugins/trajectory/web/).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the build writes the browser app, relative to the package root. */
export const TRAJECTORY_APP_BUNDLE = 'dist/trajectory/app.js';

/** `base` is `/<token>/`; `view` tells the app which page it is on, `scope` whose runs it lists (one session's, or the project's). */
export function pageHtml(base: string, view: 'runs' | 'run', scope: 'session' | 'project'): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Workflow trajectory</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${base}app.css">
<script type="module" src="${base}app.js"></script>
</head>
<body data-view="${view}" data-base="${base}" data-scope="${scope}">
<main id="app"><p class="muted">Loading…</p></main>
</body>
</html>
`;
}

let script: string | undefined;

/** The app bundle, read once from this package's dist/ (the nearest package.json above this module). */
export function trajectoryAppScript(): string {
  if (script !== undefined) return script;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) {
      const bundle = join(dir, TRAJECTORY_APP_BUNDLE);
      if (!existsSync(bundle)) throw new Error(`${TRAJECTORY_APP_BUNDLE} is missing: run npm run build`);
      script = readFileSync(bundle, 'utf8');
      return script;
    }
    if (dirname(dir) === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
  }
}

export const TRAJECTORY_CSS = `
:root { color-scheme: light dark; --fg: #1d2433; --muted: #667085; --line: #d0d5dd; --bg: #ffffff; --panel: #f6f7f9;
  --completed: #2f9e44; --failed: #e03131; --cancelled: #868e96; --running: #1c7ed6; --retrying: #f08c00; --queued: #adb5bd; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8eb; --muted: #98a2b3; --line: #3a404b; --bg: #15181e; --panel: #1d2129; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 1200px; margin: 0 auto; padding: 20px 24px 48px; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
a { color: var(--running); }
.muted { color: var(--muted); }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; color: #fff; background: var(--queued); }
.state-completed { background: var(--completed); } .state-failed { background: var(--failed); } .state-stopped, .state-cancelled { background: var(--cancelled); }
.state-running, .state-pausing, .state-waiting_for_child { background: var(--running); } .state-retrying, .state-awaiting_input, .state-budget_exhausted, .state-paused, .state-interrupted { background: var(--retrying); }
.summary { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 6px 0 0; }
.live { color: var(--running); } .live::before { content: "● "; }
.box { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; margin: 8px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.error { border-color: var(--failed); }
ul.tree { list-style: none; margin: 0; padding-left: 18px; } ul.tree.top { padding-left: 0; }
ul.tree li { margin: 2px 0; }
.node-phase > span { font-weight: 600; } .node-group > span { color: var(--muted); }
.agent-row { display: inline-flex; gap: 8px; align-items: baseline; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12px; }
svg { display: block; max-width: 100%; }
svg text { fill: var(--fg); font-size: 11px; } svg .axis { stroke: var(--line); } svg .tick { fill: var(--muted); }
svg .bar-completed { fill: var(--completed); } svg .bar-failed { fill: var(--failed); } svg .bar-cancelled { fill: var(--cancelled); } svg .bar-running { fill: var(--running); }
svg .bar-tokens { fill: var(--running); } svg .bar-input { fill: #74c0fc; }
svg .wait-band { opacity: 0.12; } svg .wait-bar { opacity: 0.4; } svg .wait-title { fill: var(--muted); }
svg .wait-checkpoint { fill: #9c36b5; } svg .wait-paused, svg .wait-interrupted, svg .wait-budget_exhausted { fill: var(--retrying); }
.legend { display: flex; gap: 14px; font-size: 12px; color: var(--muted); margin: 4px 0; }
.legend i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; }
.legend .wait-checkpoint { background: #9c36b5; } .legend .wait-paused { background: var(--retrying); }
.legend .bar-completed { background: var(--completed); } .legend .bar-failed { background: var(--failed); } .legend .bar-cancelled { background: var(--cancelled); } .legend .bar-running { background: var(--running); } .legend .bar-input { background: #74c0fc; } .legend .bar-tokens { background: var(--running); }
.toolbar { display: flex; gap: 8px; margin: 12px 0 4px; } .toolbar input { flex: 1; font: inherit; padding: 4px 8px; border: 1px solid var(--line); border-radius: 4px; background: var(--bg); color: var(--fg); }
.controls { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 8px 0; }
button { font: inherit; padding: 2px 10px; border: 1px solid var(--line); border-radius: 4px; background: var(--panel); color: var(--fg); cursor: pointer; }
button:disabled { opacity: 0.5; cursor: default; } button.control-stop, button.control-reject { border-color: var(--failed); }
dialog.confirm { max-width: min(720px, 92vw); border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
dialog.confirm pre { white-space: pre-wrap; overflow-wrap: anywhere; max-height: 35vh; overflow: auto; background: var(--panel); padding: 6px 8px; border-radius: 4px; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
dialog.confirm .answers { display: flex; gap: 8px; justify-content: flex-end; }
button.link { border: none; background: none; padding: 0 4px; color: var(--running); text-decoration: underline; }
section.session h2 { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
footer.hand-over { max-width: 1200px; margin: 0 auto; padding: 0 24px 24px; font-size: 12.5px; }
.error-text { color: var(--failed); } .downloads { margin: 4px 0; font-size: 13px; }
ul.hits { margin: 4px 0 12px; padding-left: 18px; }
section.transcript { border-top: 1px solid var(--line); margin-top: 16px; padding-top: 4px; } section.transcript h3 { font-size: 14px; margin: 8px 0 2px; }
ol.messages { list-style: none; padding: 0; margin: 8px 0; }
.msg { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; margin: 6px 0; overflow-wrap: anywhere; }
.msg-user { background: var(--panel); } .msg-tool { border-style: dashed; } .msg-tool.failed { border-color: var(--failed); } .msg.hit { outline: 2px solid var(--retrying); }
.who { font-size: 12px; margin-bottom: 2px; }
.msg pre, details pre { white-space: pre-wrap; margin: 4px 0; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; max-height: 480px; overflow: auto; }
.tool-call { margin: 4px 0; } .tool-call pre.args { background: var(--panel); padding: 4px 6px; border-radius: 4px; }
details.thinking summary, details.system-prompt summary { color: var(--muted); cursor: pointer; }
.md p { margin: 4px 0; } .md pre { background: var(--panel); padding: 6px; border-radius: 4px; } .md code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
`;
