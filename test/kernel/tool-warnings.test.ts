/**
 * Launch warnings for `tools` selectors that do not do what they say
 * (kernel/engine/tool-warnings.ts): a name the launching session lacks, and
 * a list of positives only. The session's tools are Pi's defaults here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolSelectorWarnings } from '../../kernel/engine/tool-warnings.js';
import { DEFAULT_SESSION_TOOLS as DEFAULT_TOOLS, defaultSessionTools } from '../support/default-session-tools.js';
import { createHarness, type Harness } from '../support/engine-harness.js';

let h: Harness;
beforeAll(() => {
  h = createHarness({ plugins: [defaultSessionTools] });
});
afterAll(async () => {
  await h.close();
});

const warnings = (runDir: string): string[] => h.runEvents(runDir).flatMap((entry) => (entry['type'] === 'warning' ? [String(entry['message'])] : []));

describe('tools selector warnings at launch', () => {
  it('name a tool the session lacks and what the agent gets; the run still runs', async () => {
    const handle = await h.launch("return await agent('x', { tools: ['!*', 'read', 'grep'] });");
    expect(handle.warnings).toEqual([
      'Agent option "tools" (at 1:14) names "grep", which the launching session does not have (its tools: read, bash, edit, write), so the agent gets read: start Pi with that tool active (pi --tools <names>) or leave it out',
    ]);
    expect((await handle.outcome).value).toBe('echo:x');
    expect(warnings(handle.runDir)).toEqual(handle.warnings);
  });

  it('say that a list of positives only restricts nothing, with the list to write', async () => {
    const handle = await h.launch("const a = await agent('x', { tools: ['read', 'bash'] });\nreturn a;");
    expect(handle.warnings).toEqual([
      'Agent option "tools" (at 1:17) restricts nothing: ["read", "bash"] only enables tools and every tool starts enabled, so the agent gets all of the session\'s tools (read, bash, edit, write); write ["!*", "read", "bash"] to grant only those',
    ]);
    await handle.outcome;
  });

  it('stay quiet for a list that grants what it says, a glob, or a negation', async () => {
    for (const tools of ["['!*', 'read', 'bash']", "['!*', 'read', 'g*']", "['!bash']", "['!*', 're*']"]) {
      const handle = await h.launch(`return await agent('x', { tools: ${tools} });`);
      expect(handle.warnings ?? [], tools).toEqual([]);
      await handle.outcome;
    }
  });
});

describe('toolSelectorWarnings', () => {
  const prepared = (tools: string[], excludeTools: string[] = []) => ({ tools, excludeTools });

  it('compares against the root set only when it is known', () => {
    expect(toolSelectorWarnings({ written: ['!*', 'grep'], sites: [], prepared: prepared(['!*', 'grep']) }, undefined)).toEqual([]);
  });

  it('counts excluded tools out of what the agent gets, and settings layers that already narrow', () => {
    const [absent] = toolSelectorWarnings({ written: ['!*', 'read', 'grep'], sites: ['3:1'], prepared: prepared(['!*', 'read', 'grep'], ['read']) }, DEFAULT_TOOLS);
    expect(absent).toContain('so the agent gets no tools');
    // A settings layer starting with "!*" makes the call's positives an allow-list: no "restricts nothing".
    expect(toolSelectorWarnings({ written: ['read'], sites: [], prepared: prepared(['!*', 'bash', 'read']) }, DEFAULT_TOOLS)).toEqual([]);
  });

  it('names every missing tool once, in the order written', () => {
    const [absent] = toolSelectorWarnings({ written: ['!*', 'grep', 'find', 'read'], sites: ['1:1', '4:2'], prepared: prepared(['!*', 'grep', 'find', 'read']) }, DEFAULT_TOOLS);
    expect(absent).toMatch(/^Agent option "tools" \(at 1:1, 4:2\) names "grep", "find", which .* so the agent gets read: start Pi with those tools active/);
  });
});
