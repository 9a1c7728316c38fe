/**
 * The workflow host process of the crash test: launches the crash workflow
 * (or resumes a run when given its id) with a fresh kernel and engine, and
 * reports on stdout, one line each:
 *
 *   RUN <runId> <runDir>     the run is executing (printed once launch/resume returned)
 *   OUTCOME <json>           the segment ended (RunOutcome)
 *   ERROR <json>             launch/resume threw ({ code, message })
 *
 * The parent SIGKILLs this process at a seeded random point. Node runs this
 * file directly (type stripping; the resolve hook registered first below maps
 * the tests' relative `.js` imports to their `.ts` sources); the kernel and
 * plugins come from the build (built.ts).
 *
 * Usage: node test/crash/child.ts '<json ChildConfig>'
 */
import '../../scripts/ts-resolve.mjs';

export interface ChildConfig {
  /** Run storage root, agent dir and home of the engine. */
  readonly root: string;
  readonly agentDir: string;
  readonly home: string;
  /** The workflow cwd (holds ledger.txt). */
  readonly cwd: string;
  /** Resume this run instead of launching a new one. */
  readonly runId?: string;
  readonly script: string;
}

const { kernel: built, evidence } = await import('./built.js');
const { createKernel, WorkflowEngine, registerWorkflowExtension } = built;
const { evidencePlugin } = evidence;
const { echoTransportPlugin } = await import('../support/echo-transport.js');

const { hostRun } = await import('./host.js');

const config = JSON.parse(process.argv[2] ?? '{}') as ChildConfig;

// `tally({ tag, n })`: a registered function with its own journaled shell and agent inside.
registerWorkflowExtension({
  version: '1.0.0',
  headline: 'crash-test',
  functions: {
    tally: {
      description: 'Appends its tag to the ledger, asks an agent, returns a summary',
      input: { type: 'object', properties: { tag: { type: 'string' }, n: { type: 'number' } }, required: ['tag', 'n'] },
      output: { type: 'object' },
      async run(input, context) {
        const tag = String(input['tag']);
        const shell = await context.shell(`echo ${tag} >> ledger.txt; echo ${tag}`);
        const said = await context.agent(`tally ${tag}`);
        return { tag, out: shell.stdout, said, twice: Number(input['n']) * 2 };
      },
    },
  },
});

// Agents answer after a short pause so a kill can land while one is in flight.
const kernel = createKernel({
  plugins: [evidencePlugin, echoTransportPlugin({ answer: async (prompt) => (await new Promise((resolve) => setTimeout(resolve, 2)), { result: `echo:${prompt}` }) })],
});
const engine = new WorkflowEngine({ kernel, sessionId: 'crash', root: config.root, agentDir: config.agentDir, home: config.home });

await hostRun(engine, 'crash', config);
