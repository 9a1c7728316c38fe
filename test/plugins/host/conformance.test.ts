/**
 * Contract rows checked inside a real in-process Pi session (SDK, faux
 * provider), where the model calls the workflow tools itself: what agents
 * may read from the catalog.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentSession, ExtensionAPI } from '@earendil-works/pi-coding-agent';
import { registerWorkflowExtension } from '../../../kernel/index.js';
import { createFauxAgentDir, type FauxAgentDir } from '../../support/pi-agent-dir.js';
import { callTool, say, scriptFaux, startHostedSession, type HostedSession, type Script } from './pi-host.js';

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

async function start(options: Parameters<typeof startHostedSession>[1] = {}): Promise<HostedSession> {
  const hosted = await startHostedSession(dir, options);
  open.push(hosted);
  return hosted;
}

function toolResults(messages: AgentSession['messages'], toolName: string) {
  return messages.flatMap((message) => (message.role === 'toolResult' && message.toolName === toolName ? [message] : []));
}

/** An extension that registers one function from a module with a file URL as its source. */
const withFunction = (_pi: ExtensionAPI) =>
  registerWorkflowExtension({
    version: '1.2.3',
    headline: 'Secret module',
    source: 'file:///home/someone/private/extension.js',
    functions: { double: { description: 'Doubles n', input: { type: 'object' }, output: { type: 'number' }, run: (input) => (input['n'] as number) * 2 } },
  });

describe('workflow_catalog as the model sees it', () => {
  it('gives a function detail with schemas and the extension headline, never its source', async () => {
    const hosted = await start({ extensions: [withFunction] });
    script.main.push(callTool('workflow_catalog', { name: 'double' }), say('Read.'));
    await hosted.prompt('What does double do?');
    const [detail] = toolResults(hosted.session.messages, 'workflow_catalog');
    expect(detail?.isError).toBe(false);
    expect(detail?.details).toEqual({
      name: 'double',
      function: { name: 'double', description: 'Doubles n', input: { type: 'object' }, output: { type: 'number' }, extension: { headline: 'Secret module', version: '1.2.3' } },
    });
    const text = detail?.content.map((part) => (part.type === 'text' ? part.text : '')).join('') ?? '';
    expect(text).not.toContain('file:');
    expect(text).not.toContain('private');
  });
});
