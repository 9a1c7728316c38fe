/**
 * The script's log messages for `wfcli run`, `resume` and `retry`: a kernel
 * plugin this command contributes to its own headless session taps
 * `notes.logged` and hands each message to the command's listeners. Not Pi's
 * event bus: that bus is shared with every loaded extension, and a log
 * message is script text that the WORKFLOW_* events never carry.
 */
import type { KernelPlugin, LogObservation } from '../kernel/index.js';

export const PLUGIN_NAME = 'wfcli-logs';

export interface LogFeed {
  on(listener: (entry: LogObservation) => void): () => void;
}

export function createLogFeed(): { readonly plugin: KernelPlugin; readonly feed: LogFeed } {
  const listeners = new Set<(entry: LogObservation) => void>();
  const plugin: KernelPlugin = {
    name: PLUGIN_NAME,
    apply(kernel) {
      kernel.hooks.notes.logged.tap(PLUGIN_NAME, (entry) => {
        for (const listener of listeners) listener(entry);
      });
    },
  };
  const feed: LogFeed = {
    on(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
  return { plugin, feed };
}
