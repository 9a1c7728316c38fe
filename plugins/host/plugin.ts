/**
 * The host's kernel plugin: what the runtime needs from the Pi session it runs
 * in. Bindings are read at call time, so one plugin serves every session of
 * the extension runtime; a binding that answers nothing leaves the kernel as
 * it would be without Pi.
 *
 * - `registry.primitives`: `tools.<name>(args)` (tool-primitive.ts).
 * - `preparation.launch`: UNKNOWN_TOOL for script tool names that cannot be called.
 * - `preparation.models`: the launching session's model as `rootModel` and
 *   its active tools as `rootTools` (the root candidate set).
 * - `events.emit`: every WORKFLOW_* event onto Pi's inter-extension bus, under
 *   its type as channel (best-effort, like every event).
 * - `notes.logged`: each log message to the session, for the foreground wait
 *   that follows its run; never onto the bus (it is script text).
 */
import type { KernelPlugin, LogObservation } from '../../kernel/index.js';
import { TOOLS_PRIMITIVE, checkToolNames, toolsPrimitive, type ScriptTools } from './tool-primitive.js';

export const PLUGIN_NAME = 'host';

export interface EventBusLike {
  emit(channel: string, data: unknown): void;
}

export interface HostBindings {
  readonly eventBus?: () => EventBusLike | undefined;
  readonly tools?: () => ScriptTools | undefined;
  /** `provider/model:thinking` of the launching Pi session. */
  readonly rootModel?: () => string | undefined;
  /** The launching Pi session's tools agents may have (its active tools without the runtime's own). */
  readonly rootTools?: () => readonly string[] | undefined;
  /** A script's log message, persisted. */
  readonly logged?: (entry: LogObservation) => void;
}

export function createHostPlugin(bindings: HostBindings = {}): KernelPlugin {
  const tools = () => bindings.tools?.();
  return {
    name: PLUGIN_NAME,
    provides: { primitives: [TOOLS_PRIMITIVE] },
    apply(kernel) {
      kernel.hooks.registry.primitives.tap(PLUGIN_NAME, (primitives) => [...primitives, toolsPrimitive(tools)]);
      kernel.hooks.preparation.launch.tap(PLUGIN_NAME, (input) => {
        if (input.toolNames.length > 0) checkToolNames(input.toolNames, tools());
      });
      kernel.hooks.preparation.models.tap(PLUGIN_NAME, (inventory) => {
        const rootModel = inventory.rootModel ?? bindings.rootModel?.();
        const rootTools = inventory.rootTools ?? bindings.rootTools?.();
        return { ...inventory, ...(rootModel === undefined ? {} : { rootModel }), ...(rootTools === undefined ? {} : { rootTools: [...rootTools] }) };
      });
      kernel.hooks.events.emit.tap(PLUGIN_NAME, (event) => {
        try {
          bindings.eventBus?.()?.emit(event.type, event);
        } catch {
          // Best-effort: a failing listener must not keep the event from other taps.
        }
      });
      kernel.hooks.notes.logged.tap(PLUGIN_NAME, (entry) => bindings.logged?.(entry));
    },
  };
}
