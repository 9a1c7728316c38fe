/**
 * Issue 35 item 6 through the real `wfcli`: after a run's first agent, the
 * script's shell swaps the run's transcript folder for a link to another
 * folder. The second agent's transcript (its prompt, system prompt and
 * answer) must not land in the link's target: the attempt fails with
 * AGENT_FAILED naming the folder, the target stays empty, and `wfcli
 * inspect` names no file there. Needs `npm run build`.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHome, type CliHome } from './cli-home.js';
import { defaultPiSessionDir } from '../../lib/transcripts/location.js';

let home: CliHome;
beforeAll(async () => {
  home = await createCliHome();
});
afterAll(async () => {
  await home?.close();
});

describe('a transcript folder swapped for a link', () => {
  it('is never written through: the next attempt fails with AGENT_FAILED, the target stays empty', async () => {
    const target = join(home.pi.home, 'elsewhere');
    mkdirSync(target);
    const runs = join(defaultPiSessionDir(home.pi.cwd, home.pi.agentDir), 'workflows');
    // The run's folder is the only one yet: its first agent has just written there.
    const swap = `f=$(ls -d '${runs}'/*/ | head -1); f=\${f%/}; mv "$f" "$f.moved" && ln -s '${target}' "$f"`;
    const source = `const one = await agent('PROMPT-ONE');
await shell(${JSON.stringify(swap)});
try { return [one, await agent('PROMPT-TWO')]; } catch (e) { return [one, e.code, e.message]; }`;
    const ran = await home.wfcli(['run', '--script', home.script('swap.js', source)]);
    expect(ran.code, ran.stderr).toBe(0);
    const [one, code, message] = JSON.parse(ran.stdout) as [string, string, string];
    expect(one).toBe('PROMPT-ONE: done');
    expect(code).toBe('AGENT_FAILED');
    expect(message).toMatch(/transcript folder .*workflows\/wf-[\w-]+ cannot be used: .* is not a directory/);
    expect(readdirSync(target)).toEqual([]);
    // The model never saw the second prompt: nothing of it exists anywhere.
    expect(home.model.agentRequests('PROMPT-TWO')).toBe(0);
    const inspected = await home.wfcli(['inspect', home.runIdOf(ran), '--json']);
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(inspected.stdout).not.toContain(target);
  });
});
