/** An in-memory RunAccess for unit tests of plugins that keep run state. */
import type { JsonValue, PluginEvent, RunAccess, RunEventEntry } from '../../kernel/index.js';

export interface MemoryRunAccess extends RunAccess {
  readonly state: Map<string, JsonValue>;
  readonly events: { entry: RunEventEntry; event?: PluginEvent }[];
  /** Sets what activeMs() reports. */
  elapsed: number;
}

export function memoryRunAccess(run = { runId: 'r1', sessionId: 's1', cwd: '/' }): MemoryRunAccess {
  const state = new Map<string, JsonValue>();
  const events: MemoryRunAccess['events'] = [];
  const access: MemoryRunAccess = {
    run,
    runDir: '/nonexistent-run-dir',
    workflowName: 'test',
    state,
    events,
    elapsed: 0,
    pluginState: (plugin) => state.get(plugin),
    setPluginState: (plugin, value) => void state.set(plugin, value),
    recordEvent: (entry, event) => void events.push(event === undefined ? { entry } : { entry, event }),
    activeMs: () => access.elapsed,
  };
  return access;
}

/** The SegmentInput members a plugin test rarely cares about. */
export function segmentExtras(): {
  request: Readonly<Record<string, JsonValue>>;
  recordEvent: () => void;
  propose: () => string;
  hold: () => void;
} {
  return { request: {}, recordEvent: () => undefined, propose: () => 'proposal-test', hold: () => undefined };
}
