/**
 * The workflow tools in Pi's print and JSON mode (issue 29), where the
 * session ends once the prompt is answered and has no UI:
 *
 * - a background launch is waited for and says so, so `pi -p` never leaves
 *   a run it launched interrupted (docs/tools.md "Print and JSON mode");
 * - a script with a checkpoint is refused before the run exists, instead of
 *   a foreground wait nobody can end (spec 1: checkpoints cannot run
 *   headless);
 * - `workflow_status` hands the model no resolved alias targets;
 * - the fallback read-only roles get no `edit` or `write` tool.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPiHome, installPackage, runPi, type PiHome } from './support/pi-cli.js';
import { toolExecution } from './support/pi-events.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const RUN_ID = /wf-[0-9a-z]{9}-[0-9a-f]{8}/;

function runIdIn(text: string | undefined): string {
  const match = RUN_ID.exec(text ?? '');
  if (match === null) throw new Error(`no run ID in ${JSON.stringify(text)}`);
  return match[0];
}

describe('workflow tools in print and JSON mode', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    await installPackage(pi);
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  it('pi -p waits for a background launch and says so; its status has no resolved alias targets; read-only roles have no edit or write', async () => {
    const script = [
      "const reviewed = await agent('Print review', { role: 'reviewer', model: 'reviewer-model' });",
      "const developed = await agent('Print develop', { role: 'developer' });",
      'return { reviewed, developed };',
    ].join('\n');
    model.main(({ toolResults }) => {
      if (toolResults.length === 0) return { toolCalls: [{ name: 'workflow', arguments: { name: 'printed', script } }] };
      if (toolResults.length === 1) return { toolCalls: [{ name: 'workflow_status', arguments: { runId: runIdIn(toolResults[0]) } }] };
      // Text mode prints only the final answer: it carries both tool results.
      return { text: JSON.stringify({ launch: JSON.parse(toolResults[0] ?? 'null') as unknown, status: JSON.parse(toolResults[1] ?? 'null') as unknown }) };
    });
    const { stdout } = await runPi(pi, ['-p', '--approve', '--session-id', 'printed', 'Run the printed workflow']);
    const { launch, status } = JSON.parse(stdout) as {
      launch: { runId: string; state: string; value?: unknown; message?: string };
      status: { state: string; plugins: Record<string, Record<string, unknown>> };
    };
    expect(launch).toMatchObject({ state: 'completed', value: { reviewed: 'Print review: done', developed: 'Print develop: done' } });
    expect(launch.message).toMatch(/^Ran in the foreground although a background run was asked for: this Pi session \(print or JSON mode\) ends once the prompt is answered/);
    // The run is not left behind: it completed before pi exited.
    expect(pi.readJson(join(pi.runDir('printed', launch.runId), 'snapshot.json'))).toMatchObject({ state: 'completed' });

    // Spec 2: agents never receive resolver values; the stored run keeps its mapping, the model's status view does not.
    expect(status.state).toBe('completed');
    expect(status.plugins['aliases']).toBeDefined();
    expect(status.plugins['aliases']).not.toHaveProperty('mapping');
    const stored = pi.readJson(join(pi.runDir('printed', launch.runId), 'snapshot.json')) as { plugins: { aliases: { mapping: Record<string, string> } } };
    const target = stored.plugins.aliases.mapping['reviewer-model'];
    expect(target).toMatch(/^e2e\//);
    expect(JSON.stringify(status)).not.toContain(target);

    const reviewerTools = model.agentTools('Print review') ?? [];
    expect(reviewerTools).toEqual(expect.arrayContaining(['read', 'bash']));
    expect(reviewerTools).not.toContain('edit');
    expect(reviewerTools).not.toContain('write');
    expect(model.agentTools('Print develop')).toEqual(expect.arrayContaining(['read', 'bash', 'edit', 'write']));
  });

  it('refuses a script with a checkpoint before any run exists, in JSON mode, foreground or not', async () => {
    const script = "await agent('Before the checkpoint');\nconst ok = await checkpoint({ name: 'ship', prompt: 'Ship it?' });\nreturn ok;";
    model.main(({ toolResults }) => {
      if (toolResults.length === 0) return { toolCalls: [{ name: 'workflow', arguments: { name: 'gated', script, foreground: true } }] };
      return { text: 'done' };
    });
    const { stdout } = await runPi(pi, ['--mode', 'json', '--approve', '--session-id', 'gated', 'Run the gated workflow']);
    const launch = toolExecution(stdout, 'workflow');
    expect(launch.isError).toBe(true);
    expect(launch.text).toMatch(
      /INVALID_METADATA: Workflows containing checkpoints cannot run headless: this Pi session has no UI to answer them \(print, JSON or RPC mode\) \(the script calls checkpoint\(\.\.\.\)\); run the workflow from an interactive Pi session \(wfcli runs headless too\)/,
    );
    expect(model.agentRequests('Before the checkpoint')).toBe(0);
    const sessions = join(pi.home, '.pi', 'workflows', 'projects');
    const stored = existsSync(sessions) ? readdirSync(sessions).flatMap((project) => (existsSync(join(sessions, project, 'sessions', 'gated')) ? [project] : [])) : [];
    expect(stored).toEqual([]);
  });
});
