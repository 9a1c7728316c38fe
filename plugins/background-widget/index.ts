/**
 * The background widget (spec 1 "What the service does"; the global
 * `backgroundWidget` setting, default true): above the editor of an
 * interactive Pi session, a live tree of the session's background runs that
 * have not ended, and, when one ends, a receipt in the transcript (a custom
 * session entry: durable, shown by its renderer, never sent to the model).
 * Print and JSON mode and headless hosts draw neither. The kernel side keeps
 * each engine (registry.engine) and redraws on its events (events.emit).
 * The log messages of runs no live tool item follows become transcript
 * entries too (notes.logged; log-entries.ts has the bounds).
 */
import type { ExtensionAPI, ExtensionContext } from '@earendil-works/pi-coding-agent';
import { Text } from '@earendil-works/pi-tui';
import { DEFAULT_SETTINGS, readGlobalSettingsFile, resolveAgentDir, workflowPluginEntry, WORKFLOW_RUN_RESUMED_EVENT, WORKFLOW_RUN_STATE_CHANGED_EVENT, type KernelPlugin, type StatusSummary, type WorkflowEngineApi, type WorkflowEvent, type WorkflowHostSession } from '../../kernel/index.js';
import { LOG_ENTRY, LogEntries, logEntryLines, type LogEntry } from './log-entries.js';
import { RECEIPT_STATES, receiptOf, receiptText, runName, widgetLines, type Receipt } from './view.js';

export const PLUGIN_NAME = 'background-widget';
/** The widget's key and the custom entry type of receipts. */
export const WIDGET_KEY = 'workflow-background';
export const RECEIPT_ENTRY = 'workflow-receipt';

/** The interactive session the widget draws in. */
interface Surface {
  readonly sessionId: string;
  readonly cwd: string;
  draw(lines: readonly string[]): void;
  receipt(receipt: Receipt): void;
  readonly logs: LogEntries;
}

const engines = new Set<WorkflowEngineApi>();
/** Started host sessions: they know which runs a live tool item follows. */
const hosts = new Set<WorkflowHostSession>();
let surface: Surface | undefined;
let pending: NodeJS.Timeout | undefined;
/** Runs already given a receipt for their current end (run ID → state). */
const receipted = new Map<string, string>();

function ownEngine(): WorkflowEngineApi | undefined {
  const target = surface;
  return target === undefined ? undefined : [...engines].find((candidate) => candidate.sessionId === target.sessionId);
}

function ownRuns(): readonly StatusSummary[] {
  const target = surface;
  const engine = ownEngine();
  return target !== undefined && engine ? engine.list(target.cwd) : [];
}

/** The workflow's name for a log entry; none when the run cannot be read. */
function nameOf(runId: string): string | undefined {
  try {
    const target = surface;
    const run = target === undefined ? undefined : ownEngine()?.status(target.cwd, runId);
    return run === undefined ? undefined : runName(run);
  } catch {
    return undefined;
  }
}

/** Redraws the tree; a background run that ended since gets its receipt once. */
function refresh(): void {
  pending = undefined;
  const target = surface;
  if (target === undefined) return;
  try {
    const background = ownRuns().filter((run) => run.launchMode === 'background');
    target.draw(widgetLines(background.filter((run) => run.executing && !RECEIPT_STATES.has(run.state))));
  } catch {
    // Best-effort: a run directory that cannot be read leaves the last drawing.
  }
}

function ended(event: WorkflowEvent): void {
  const target = surface;
  if (target === undefined || event.type !== WORKFLOW_RUN_STATE_CHANGED_EVENT || !RECEIPT_STATES.has(event.to) || event.sessionId !== target.sessionId) return;
  if (receipted.get(event.runId) === event.to) return;
  const run = ownRuns().find((candidate) => candidate.runId === event.runId);
  if (run === undefined || run.launchMode !== 'background') return;
  receipted.set(event.runId, event.to);
  // The run's last messages come before its receipt.
  target.logs.flush();
  target.receipt(receiptOf({ ...run, state: event.to }));
}

export const backgroundWidgetPlugin: KernelPlugin = {
  name: PLUGIN_NAME,
  apply(kernel) {
    kernel.hooks.registry.engine.tap(PLUGIN_NAME, ({ engine, onClose }) => {
      engines.add(engine);
      onClose(() => void engines.delete(engine));
    });
    kernel.hooks.events.emit.tap(PLUGIN_NAME, (event) => {
      if (surface === undefined || event.sessionId !== surface.sessionId) return;
      // A resumed run will end again and earn a new receipt.
      if (event.type === WORKFLOW_RUN_RESUMED_EVENT) receipted.delete(event.runId);
      try {
        ended(event);
      } catch {
        // Best-effort, like every event listener.
      }
      pending ??= setTimeout(refresh, 40);
    });
    kernel.hooks.host.started.tap(PLUGIN_NAME, (host) => void hosts.add(host));
    kernel.hooks.host.stopped.tap(PLUGIN_NAME, (host) => void hosts.delete(host));
    kernel.hooks.notes.logged.tap(PLUGIN_NAME, (entry) => {
      const target = surface;
      if (target === undefined || entry.run.sessionId !== target.sessionId) return;
      // A foreground call that waits on the run shows the message in its live item.
      if ([...hosts].some((host) => host.sessionId === target.sessionId && host.followed(entry.run.runId))) return;
      target.logs.add(entry);
    });
  },
};

/** `backgroundWidget` of the global settings file (the only file that may set it); an unreadable file keeps the default. */
export function backgroundWidgetEnabled(agentDir: string): boolean {
  const read = readGlobalSettingsFile(agentDir);
  return read.state === 'read' ? (read.data.backgroundWidget ?? DEFAULT_SETTINGS.backgroundWidget) : DEFAULT_SETTINGS.backgroundWidget;
}

function attach(pi: ExtensionAPI, ctx: ExtensionContext): void {
  // Interactive hosts only: print and JSON mode have no UI (hasUI false). A workflow agent's own
  // in-process Pi session starts inside the surface's session and never replaces it.
  if (surface !== undefined || !ctx.hasUI || !backgroundWidgetEnabled(resolveAgentDir())) return;
  receipted.clear();
  surface = {
    sessionId: ctx.sessionManager.getSessionId(),
    cwd: ctx.cwd,
    draw: (lines) => ctx.ui.setWidget(WIDGET_KEY, lines.length === 0 ? undefined : [...lines], { placement: 'aboveEditor' }),
    receipt: (receipt) => pi.appendEntry(RECEIPT_ENTRY, receipt),
    logs: new LogEntries((entry) => pi.appendEntry(LOG_ENTRY, entry), nameOf),
  };
  refresh();
}

export default workflowPluginEntry(backgroundWidgetPlugin, (pi: ExtensionAPI) => {
  pi.registerEntryRenderer<Receipt>(RECEIPT_ENTRY, (entry, _options, theme) => {
    const receipt = entry.data;
    if (receipt === undefined) return undefined;
    const color = receipt.state === 'completed' ? 'success' : receipt.state === 'failed' ? 'error' : 'warning';
    return new Text(theme.fg(color, receiptText(receipt)), 1, 0);
  });
  pi.registerEntryRenderer<LogEntry>(LOG_ENTRY, (entry, _options, theme) => {
    if (entry.data === undefined) return undefined;
    return new Text(theme.fg('dim', logEntryLines(entry.data).join('\n')), 1, 0);
  });
  pi.on('session_start', (_event, ctx) => attach(pi, ctx));
  pi.on('session_shutdown', (_event, ctx) => {
    if (surface?.sessionId !== ctx.sessionManager.getSessionId()) return;
    surface.logs.dispose();
    surface = undefined;
    if (pending) clearTimeout(pending);
    pending = undefined;
  });
});
