/**
 * An agent-dir extension that registers a workflow function and then a tool
 * is loaded again by each workflow agent's in-process Pi session
 * (pi-transport) while the host's registry is frozen. That reload registers
 * the same capabilities, so the frozen registry accepts it as a no-op: the
 * extension loads without error and the agent session has its tool.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { getCurrentTools } from '@earendil-works/pi-ai';
import { createAgentSessionServices } from '@earendil-works/pi-coding-agent';
import { afterAll, describe, expect, it } from 'vitest';
import { RESULT_TOOL_NAME } from '../../../kernel/index.js';
import { deferred } from '../../support/engine-harness.js';
import { createFauxAgentDir } from '../../support/pi-agent-dir.js';
import { callTool, lastToolResult, say, scriptFaux, startHostedSession, submit } from './pi-host.js';

const dir = createFauxAgentDir();
afterAll(() => dir.close());

const log = join(dir.root, 'wfext.log');
mkdirSync(join(dir.agentDir, 'extensions'), { recursive: true });
writeFileSync(
  join(dir.agentDir, 'extensions', 'wfext.ts'),
  [
    `import { appendFileSync } from 'node:fs';`,
    `import { registerWorkflowExtension, workflowRegistryState } from ${JSON.stringify(resolve('kernel/registry/store.ts'))};`,
    `export default function (pi) {`,
    `  appendFileSync(${JSON.stringify(log)}, 'factory ' + workflowRegistryState() + '\\n');`,
    `  registerWorkflowExtension({ version: '1.0.0', headline: 'wfext', functions: { triple: { description: 'x3', input: { type: 'object', properties: { n: { type: 'number' } } }, output: { type: 'number' }, run: (input) => input.n * 3 } } });`,
    `  appendFileSync(${JSON.stringify(log)}, 'registered\\n');`,
    `  pi.registerTool({ name: 'wfext_tool', label: 'wfext', description: 'A test tool', parameters: { type: 'object', properties: {} },`,
    `    async execute() { return { content: [{ type: 'text', text: 'ok' }], details: undefined }; } });`,
    `}`,
    '',
  ].join('\n'),
);

describe('an extension registering workflow functions, loaded again in a workflow agent session', () => {
  it('loads cleanly there, and the agent session has its tool', async () => {
    const script = scriptFaux(dir);
    const hosted = await startHostedSession(dir);
    const done = deferred();
    let agentTools: string[] = [];
    let result: Record<string, unknown> = {};
    script.agents.push((context) => {
      agentTools = getCurrentTools(context.messages).map((tool) => tool.name);
      return submit('fine')(context);
    });
    script.main.push(
      callTool('workflow', { name: 'w', script: 'return [await triple({ n: 2 }), await agent("hi")]', foreground: true }),
      (context) => {
        result = lastToolResult(context);
        done.resolve();
        return say('Done.')(context);
      },
    );
    let mainTools: string[];
    let loads: string[];
    let frozenLoad: { path: string; error: string }[];
    try {
      await hosted.prompt('go', done.promise);
      mainTools = hosted.session.getActiveToolNames();
      loads = readFileSync(log, 'utf8').trim().split('\n');
      // What the agent session's loader saw, reproduced while the host's registry is still frozen.
      const services = await createAgentSessionServices({ cwd: dir.cwd, agentDir: dir.agentDir });
      frozenLoad = services.resourceLoader.getExtensions().errors;
    } finally {
      await hosted.close();
    }
    // The main session loaded it while the registry was loading; the agent session reloaded it frozen, without error.
    expect(loads).toEqual(['factory loading', 'registered', 'factory frozen', 'registered']);
    expect(result).toMatchObject({ state: 'completed', value: [6, 'fine'] });
    expect(mainTools).toContain('wfext_tool');
    expect(agentTools).toContain(RESULT_TOOL_NAME);
    expect(agentTools).toContain('wfext_tool');
    expect(frozenLoad).toEqual([]);
  });
});
