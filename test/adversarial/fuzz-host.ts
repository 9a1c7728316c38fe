/**
 * The workflow host process of the replay fuzzer (`replay-fuzz.test.ts`):
 * launches a generated workflow (or resumes a run when given its id) with a
 * fresh kernel and engine, answers its checkpoints after a short delay, and
 * reports on stdout as the crash-test hosts do (test/crash/host.ts):
 *
 *   RUN <runId> <runDir>     the run is executing
 *   OUTCOME <json>           the segment ended (RunOutcome)
 *   ERROR <json>             launch/resume threw ({ code, message })
 *
 * The parent SIGKILLs this process at seeded random points. Every shell of
 * the workflow and of `tally` appends its unique tag to ledger.txt, so the
 * parent can prove that no journaled operation ran twice.
 *
 * Usage: node test/adversarial/fuzz-host.ts '<json FuzzHostConfig>'
 */
import '../../scripts/ts-resolve.mjs';

import type { ChildConfig } from '../crash/child.js';

/** The same as the crash test's host: run storage, the workflow cwd (holds ledger.txt), the script, and the run to resume. */
export type FuzzHostConfig = ChildConfig;

// The kernel and plugins come from the build (../crash/built.ts).
const { kernel: built, checkpoints, evidence } = await import('../crash/built.js');
const { createKernel, WorkflowEngine, WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT, registerWorkflowExtension } = built;
const { checkpointsPlugin } = checkpoints;
const { evidencePlugin } = evidence;
const { echoTransportPlugin } = await import('../support/echo-transport.js');
const { hostRun } = await import('../crash/host.js');

const config = JSON.parse(process.argv[2] ?? '{}') as FuzzHostConfig;

// `tally({ tag, n })`: a registered function with journaled work of its own.
registerWorkflowExtension({
  version: '1.0.0',
  headline: 'replay-fuzz',
  functions: {
    tally: {
      description: 'Appends its tag to the ledger, asks an agent, returns a summary',
      input: { type: 'object', properties: { tag: { type: 'string' }, n: { type: 'number' } }, required: ['tag', 'n'] },
      output: { type: 'object' },
      async run(input, context) {
        const tag = String(input['tag']);
        const first = await context.shell(`sleep 0.0${Number(input['n']) % 5}; echo ${tag}-a >> ledger.txt; echo ${tag}-a`);
        const said = await context.agent(`tally ${tag}`);
        const second = await context.shell(`echo ${tag}-b >> ledger.txt; echo ${tag}-b`);
        return { out: [first.stdout, second.stdout], said, twice: Number(input['n']) * 2 };
      },
    },
  },
});

// A checkpoint is answered a moment after it asks; its decision follows from its name, so every run decides alike.
let engine!: InstanceType<typeof WorkflowEngine>;
const answerer = {
  name: 'fuzz-answerer',
  apply: (kernel: Parameters<(typeof checkpointsPlugin)['apply']>[0]) =>
    kernel.hooks.events.emit.tap('fuzz-answerer', (event) => {
      if (event.type !== WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT || event.state !== 'awaiting') return;
      const approved = event.name.length % 2 === 0;
      setTimeout(() => {
        try {
          engine.respond(config.cwd, event.runId, event.name, approved);
        } catch {
          // the run ended meanwhile
        }
      }, 5 + (event.name.length % 4) * 5);
    }),
};
const kernel = createKernel({
  plugins: [
    checkpointsPlugin,
    evidencePlugin,
    echoTransportPlugin({ answer: async (prompt) => (await new Promise((resolve) => setTimeout(resolve, 3)), { result: `echo:${prompt}` }) }),
    answerer,
  ],
});
engine = new WorkflowEngine({ kernel, sessionId: 'fuzz', root: config.root, agentDir: config.agentDir, home: config.home });

await hostRun(engine, 'fuzz', config);
