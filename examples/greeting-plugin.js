// A minimal workflow plugin, loaded as its own Pi extension entry:
//
//   pi -e ./examples/greeting-plugin.js          (or list it in a package's pi.extensions)
//
// Its entry contributes the plugin to the workflow host, which builds its
// kernel from the contributed plugins at session start. The plugin adds one
// script primitive, greet(name), which resolves to "Hello, <name>!"; like
// every primitive call it is journaled once and replayed on resume.
import { WorkflowError, workflowPluginEntry } from 'pi-extensible-workflows/kernel';

const PLUGIN_NAME = 'greeting';

/** @type {import('pi-extensible-workflows/kernel').KernelPlugin} */
export const greetingPlugin = {
  name: PLUGIN_NAME,
  // Declared, so a host that knows this plugin but has not loaded it can say which plugin `greet` needs.
  provides: { primitives: ['greet'] },
  apply(kernel) {
    kernel.hooks.registry.primitives.tap(PLUGIN_NAME, (primitives) => [
      ...primitives,
      {
        name: 'greet',
        kind: 'effect',
        run(call) {
          const [name] = call.args;
          if (typeof name !== 'string' || name === '') throw new WorkflowError('INVALID_METADATA', 'greet takes one non-empty string');
          return `Hello, ${name}!`;
        },
      },
    ]);
  },
};

// The default export is the Pi extension factory; embedders use `greetingPlugin` directly.
export default workflowPluginEntry(greetingPlugin);
