/**
 * The root candidate set in a real `pi` process (docs/resource-selectors.md):
 * a workflow agent is offered the tools active in the launching session and
 * its own (`workflow_result`, `agent`, `get_subagent_result`), never more.
 * By default that is Pi's four; `pi --tools` changes the root, and the
 * agents follow it.
 */
import { describe, expect, it } from 'vitest';
import { runPi } from './support/pi-cli.js';
import { toolExecution } from './support/pi-events.js';
import { useScriptedPi } from './support/scripted-pi.js';

const OWN = ['agent', 'get_subagent_result', 'workflow_result'];

describe("workflow agents' tools in a pi process", () => {
  const env = useScriptedPi();

  async function offeredTo(prompt: string, piArgs: readonly string[]): Promise<readonly string[] | undefined> {
    env.model.main(({ toolResults }) =>
      toolResults.length === 0 ? { toolCalls: [{ name: 'workflow', arguments: { name: 'tools', script: `return await agent(${JSON.stringify(prompt)});`, foreground: true } }] } : { text: 'Done.' },
    );
    const { stdout } = await runPi(env.pi, ['--mode', 'json', '--approve', ...piArgs, '--session-id', prompt.replace(/\W+/g, '-'), 'Run it']);
    const launched = toolExecution(stdout, 'workflow');
    expect(launched.isError, launched.text).toBe(false);
    return env.model.agentTools(prompt);
  }

  it("offers Pi's default four when the launching session has them, not every built-in", async () => {
    expect(await offeredTo('Default tools', [])).toEqual(['bash', 'edit', 'read', 'write', ...OWN].sort());
  });

  it('follows the launching session: pi --tools read,grep gives agents read and grep', async () => {
    expect(await offeredTo('Chosen tools', ['--tools', 'read,grep,workflow'])).toEqual(['grep', 'read', ...OWN].sort());
  });
});
