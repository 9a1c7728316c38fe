/**
 * What a run does with what scripts from other runtimes bring (docs/runs.md,
 * "Script language"): script errors with their line and column, `meta` as
 * run metadata, warnings for foreign agent options (at launch and at run
 * time), agents left running when the script ends, and runs of script
 * language 1 keeping `{{name}}` templates on retry.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, deferred, type Harness } from '../support/engine-harness.js';

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  h.answer = undefined;
});

const warnings = (runDir: string): string[] => h.runEvents(runDir).flatMap((entry) => (entry['type'] === 'warning' ? [String(entry['message'])] : []));

describe('script errors', () => {
  it("carry the script's line, column and own message; not a retry case", async () => {
    const typeError = await h.run("const r = await shell('echo hi');\nconst y = r.missing.deeper;\nreturn y;");
    expect(typeError.error).toEqual({ code: 'INTERNAL_ERROR', message: "Line 2, column 21: TypeError: Cannot read properties of undefined (reading 'deeper')" });
    expect(h.snapshot(typeError.runDir).failure?.details).toEqual({ reason: 'script_error', line: 2, column: 21 });
    // On the first line, after the wrapper the sandbox evaluates.
    expect((await h.run("throw new Error('boom');")).error?.message).toBe('Line 1, column 7: Error: boom');
    // Inside a parallel branch, after an await.
    const inBranch = await h.run("const out = await parallel('p', {\n  a: async () => { const r = await shell('true'); return r.nope.x; },\n});");
    expect(inBranch.error?.message).toBe("Line 2, column 65: TypeError: Cannot read properties of undefined (reading 'x')");
  });

  it("prefixes a primitive's refusal with where the script called it, and names the clock's way out", async () => {
    const prompt = await h.run("const a = 1;\nreturn prompt('{a} {b}', { a });");
    expect(prompt.error?.code).toBe('INVALID_METADATA');
    expect(prompt.error?.message).toMatch(/^Line 2, column \d+: prompt template has the placeholder \{b\}/);
    // An alias the preflight cannot see: the sandbox refuses it, and the message says what to do.
    const clock = await h.run('const D = Date;\nreturn D.now();');
    expect(clock.error?.message).toMatch(/^Line 2, column \d+: Date\.now\(\) is not available: a workflow is evaluated again on resume and retry/);
  });
});

describe('export const meta and export default', () => {
  it('describes the run with meta.description unless the launch does; the launch name stays the name', async () => {
    const source = "export const meta = { name: 'from-meta', description: 'From meta' };\nreturn meta.name;";
    const described = await h.run(source);
    expect(described.value).toBe('from-meta');
    expect(h.snapshot(described.runDir).workflow).toEqual({ name: 'test', description: 'From meta' });
    const own = await h.run(source, { description: 'From the launch' });
    expect(h.snapshot(own.runDir).workflow.description).toBe('From the launch');
  });

  it('runs the default function with the launch args and returns its value', async () => {
    const outcome = await h.run("export default async function main(input) {\n  const said = await agent('hello ' + input.who);\n  return { said };\n}\n", { args: { who: 'ann' } });
    expect(outcome.value).toEqual({ said: 'echo:hello ann' });
  });
});

describe('foreign agent options', () => {
  it('warn at launch, in the run events and on the handle, naming our equivalent; the run still runs', async () => {
    const handle = await h.launch("return await agent('x', { schema: { type: 'object' }, worktree: 'fix', label: 'x', advisor: true });");
    expect(handle.warnings).toEqual([
      'Agent option "schema" (at 1:14) is read as outputSchema: the agent returns a value of that JSON Schema\'s shape (outputSchema is this runtime\'s name for it)',
      'Agent option "worktree" (at 1:14) means nothing to this runtime or its loaded extensions and is ignored: run the agent inside withWorktree("name", () => agent(...)), which materializes a named git worktree for everything in the callback',
    ]);
    // Read as outputSchema: the submitted object is the value, not text.
    expect((await handle.outcome).value).toEqual({ result: 'echo:x' });
    expect(warnings(handle.runDir)).toEqual(handle.warnings);
  });

  it('read schema built at run time as outputSchema too, with a note in the run events', async () => {
    const outcome = await h.run("const schema = JSON.parse('{\"type\":\"object\"}');\nreturn await agent('y', { schema });");
    expect(outcome.value).toEqual({ result: 'echo:y' });
    expect(warnings(outcome.runDir)).toEqual([expect.stringContaining('Agent option "schema" (at 2:14) is read as outputSchema')]);
  });

  it('refuse a literal schema that is no JSON Schema object, or one beside outputSchema, before the run exists, with the form to write', async () => {
    for (const options of ["{ schema: 'json' }", "{ schema: { type: 'object' }, outputSchema: { type: 'object' } }"]) {
      const refused = await h.launch(`return await agent('z', ${options});`).then(
        () => undefined,
        (error: unknown) => error as { code: string; message: string },
      );
      expect(refused?.code, options).toBe('INVALID_METADATA');
      expect(refused?.message).toMatch(/^agent at 1:14: .*outputSchema: \{ type: "object", properties: \{ \.\.\. \}, required: \[\.\.\.\] \}/);
    }
  });

  it('leave schema to a loaded extension that declares it: neither read as outputSchema nor refused', async () => {
    const own = createHarness({ plugins: [{ name: 'schema-reader', provides: { agentOptions: ['schema'] }, apply: () => undefined }] });
    try {
      const handle = await own.launch("return await agent('v', { schema: 'json' });");
      expect(handle.warnings ?? []).toEqual([]);
      expect((await handle.outcome).value).toBe('echo:v');
    } finally {
      await own.close();
    }
  });

  it('refuse a schema built at run time that is no object as INVALID_METADATA the script can catch', async () => {
    const outcome = await h.run("const schema = JSON.parse('\"json\"');\ntry { await agent('w', { schema }); } catch (e) { return e.code; }");
    expect(outcome.value).toBe('INVALID_METADATA');
  });

  it('warn at run time for option objects built dynamically, once per option and site', async () => {
    const outcome = await h.run("const options = JSON.parse('{\"tier\":\"fast\"}');\nfor (const p of ['a', 'b']) await agent(p, options);\nreturn 1;");
    expect(outcome.value).toBe(1);
    expect(warnings(outcome.runDir)).toEqual([expect.stringContaining('Agent option "tier" (at 2:35) means nothing to this runtime')]);
  });
});

describe('agents the script did not wait for', () => {
  it('are cancelled when the script ends, and say so; the completed run shows none running', async () => {
    const gate = deferred<void>();
    h.answer = async (prompt) => {
      if (prompt === 'late') await gate.promise;
      return { result: prompt };
    };
    // Kept in a variable, so the preflight cannot see that nobody awaits it.
    const outcome = await h.run("const late = agent('late');\nreturn 'done';");
    gate.resolve();
    expect(outcome).toMatchObject({ state: 'completed', value: 'done' });
    const agents = Object.values(h.snapshot(outcome.runDir).agents);
    expect(agents.map((agent) => agent.state)).toEqual(['cancelled']);
    expect(warnings(outcome.runDir)).toEqual([expect.stringContaining('was still running when the script ended and was cancelled')]);
  });
});

describe('runs of script language 1', () => {
  it('keep {{name}} templates when retried, so they replay what they recorded', async () => {
    let down = true;
    h.answer = (prompt) => {
      if (down) throw new Error('provider down');
      return { result: prompt };
    };
    const failed = await h.run("const ready = await agent('ready?');\nreturn prompt('Hi {{who}}, {single}', { who: ready });");
    expect(failed.state).toBe('failed');
    // A run stored before script language 2 has no scriptLanguage in its snapshot.
    h.writeSnapshot(failed.runDir, (snapshot) => {
      delete snapshot['scriptLanguage'];
    });
    down = false;
    const child = await h.engine.retry(h.cwd, failed.runId);
    const outcome = await child.outcome;
    expect(outcome).toMatchObject({ state: 'completed', value: 'Hi ready?, {single}' });
    expect(h.snapshot(child.runDir).scriptLanguage).toBeUndefined();
  });
});
