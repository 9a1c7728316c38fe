/**
 * The remote agents happy path on the Pi the suite drives: with
 * `PI_CLI=latest` (this file is in PI_LATEST_FILES) the host's `wfcli` and
 * the workers load Pi 1.x's SDK, named by `WFCLI_PI`, which `wfcli` honours
 * and the processes inherit. Kept small (one run, one worker): the failure
 * cases are remote-agents.test.ts's, on the default Pi, which covers this
 * path too: vitest.e2e.config.ts runs this file only when PI_CLI names
 * another Pi.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PI_CLI, piPackageOf, runWfcli } from './support/pi-cli.js';
import { journaled, submit, useRemoteWorld, writeScript } from './support/remote-run.js';
import { json, runIdOf } from './support/wfcli-output.js';

describe('remote agents on the Pi under test', () => {
  const previous = process.env['WFCLI_PI'];
  beforeAll(() => {
    process.env['WFCLI_PI'] = PI_CLI;
  });
  afterAll(() => {
    if (previous === undefined) delete process.env['WFCLI_PI'];
    else process.env['WFCLI_PI'] = previous;
  });
  const world = useRemoteWorld();

  it("runs an agent and a handle's two sends on a worker: values, changes, usage", async () => {
    const { host, remote, database } = world.hostProject();
    const doctor = await runWfcli(host, ['doctor']);
    const pi = piPackageOf(PI_CLI);
    const { version } = JSON.parse(readFileSync(join(pi, 'package.json'), 'utf8')) as { version: string };
    expect(doctor.stdout).toContain(`${version} at ${pi} (named by --pi or WFCLI_PI)`);
    await world.workersOn(1, database, remote);
    // The writer writes a file, then submits; the handle's second turn submits how many user prompts its request shows.
    world.model.agents((request) => {
      const users = request.messages.filter((message) => message.role === 'user').length;
      const toolAnswered = request.messages.at(-1)?.role === 'tool';
      if (request.prompt === 'Latest writer') return toolAnswered ? submit('wrote') : { toolCalls: [{ name: 'write', arguments: { path: 'latest.txt', content: 'from a worker\n' } }] };
      if (request.prompt === 'Latest handle') return submit(`saw ${users} prompts`);
      return undefined;
    });
    const source = "const wrote = await agent('Latest writer');\nconst handle = agent.create({ name: 'latest' });\nconst first = await handle.send('Latest handle');\nconst second = await handle.send('Latest again');\nreturn { wrote, first, second };\n";
    const run = await runWfcli(host, ['run', '--script', writeScript(host, 'latest.js', source)]);
    expect(run.code, run.stderr).toBe(0);
    expect(json(run)).toEqual({ wrote: 'wrote', first: 'saw 1 prompts', second: 'saw 2 prompts' });
    expect(readFileSync(join(host.cwd, 'latest.txt'), 'utf8')).toBe('from a worker\n');
    const journal = await journaled(host, runIdOf(run));
    expect(journal.attempts.map((attempt) => attempt.status)).toEqual(['completed', 'completed', 'completed']);
    // Four model requests of 10 input and 5 output tokens each.
    expect(journal.usage).toMatchObject({ inputTokens: 40, outputTokens: 20 });
  });
});
