/**
 * The subagents entry beside the workflow host in a real in-process Pi
 * session (SDK, faux provider): the host hands its session to the plugin
 * (host.started), the model runs a subagent with the tool, the subagent's own
 * Pi session gets no subagent tools (a nested load registers nothing) but the
 * nested `agent` tools, and the host's /workflow views leave the claimed run
 * out while the engine still knows it.
 */
import { getCurrentTools } from '@earendil-works/pi-ai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { activeHost } from '../../../plugins/host/active-host.js';
import { recoverRuns } from '../../../plugins/host/recovery.js';
import { workflowRuns } from '../../../plugins/host/view.js';
import subagentsEntry from '../../../plugins/subagents/index.js';
import { createFauxAgentDir, type FauxAgentDir } from '../../support/pi-agent-dir.js';
import { callTool, lastToolResult, say, scriptFaux, startHostedSession, submit, type HostedSession, type Script } from '../host/pi-host.js';

let dir: FauxAgentDir;
let script: Script;
const open: HostedSession[] = [];

beforeAll(() => {
  dir = createFauxAgentDir();
});
afterAll(() => dir.close());
beforeEach(() => {
  script = scriptFaux(dir);
});
afterEach(async () => {
  for (const hosted of open.splice(0)) await hosted.close();
});

describe('the subagents entry in a Pi session', () => {
  it('runs a foreground subagent through the tool; its session has the nested agent tools and no subagent tools; /workflow leaves it out', async () => {
    const hosted = await startHostedSession(dir, { extensions: [subagentsEntry] });
    open.push(hosted);
    const toolNames = hosted.session.getAllTools().map((tool) => tool.name);
    expect(toolNames).toEqual(expect.arrayContaining(['subagents_run', 'subagents_inspect', 'subagents_steer', 'subagents_stop', 'subagents_retry', 'workflow']));
    let agentTools: string[] = [];
    let result: Record<string, unknown> = {};
    script.agents.push((context) => {
      agentTools = getCurrentTools(context.messages).map((tool) => tool.name);
      return submit('found 3 files')(context);
    });
    script.main.push(callTool('subagents_run', { prompt: 'Count files', label: 'counter', foreground: true }), (context) => {
      result = lastToolResult(context);
      return say('Done.')(context);
    });
    await hosted.prompt('Count the files with a subagent');

    expect(result).toMatchObject({ state: 'completed', value: 'found 3 files', inlined: true });
    expect(agentTools).toEqual(expect.arrayContaining(['workflow_result', 'agent', 'get_subagent_result']));
    expect(agentTools.filter((name) => name.startsWith('subagents_') || name.startsWith('workflow'))).toEqual(['workflow_result']);

    const host = activeHost()?.session;
    if (host === undefined) throw new Error('no host session');
    const run = host.engine.status(host.cwd, String(result['runId']));
    expect(run.plugins['subagents']).toMatchObject({ request: { label: 'counter' }, session: { model: expect.stringMatching(/^faux\//) } });
    expect(host.claimed(run)).toBe(true);
    expect(host.engine.list(host.cwd).map((entry) => entry.runId)).toEqual([run.runId]);
    expect(workflowRuns(host)).toEqual([]);
    expect(recoverRuns(host)).toEqual([]);
  });
});
