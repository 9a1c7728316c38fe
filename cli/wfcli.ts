/**
 * The `wfcli` command. Commands arrive one issue at a time; unknown commands
 * and flags are refused with the usage text.
 */
import { parseArgs } from 'node:util';
import { isWorkflowError, messageOf } from '../kernel/errors.js';
import { unsupportedNode } from '../kernel/node-version.js';

const USAGE = `usage:
  wfcli run --script <workflow.js> [--name <workflow-name>] [--input <json>] [--budget <json>] [--approve | --no-approve]
  wfcli relay [--port <port>] [--host <address>]
`;

export async function main(argv: readonly string[]): Promise<number> {
  const oldNode = unsupportedNode();
  if (oldNode !== undefined) return (process.stderr.write(`wfcli: ${oldNode}\n`), 1);
  const [command, ...rest] = argv;
  // The relay bridge is a separate service; load it only when asked for.
  if (command === 'relay') return (await import('../relay/cli.js')).main(rest);
  if (command !== 'run') {
    process.stderr.write(command === undefined || command === '--help' ? USAGE : `wfcli: unknown command "${command}"\n${USAGE}`);
    return command === '--help' ? 0 : 2;
  }
  let values: { script?: string; name?: string; input?: string; budget?: string; approve?: boolean; 'no-approve'?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...rest],
      options: {
        script: { type: 'string' },
        name: { type: 'string' },
        input: { type: 'string' },
        budget: { type: 'string' },
        approve: { type: 'boolean' },
        'no-approve': { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    process.stderr.write(`wfcli: ${messageOf(error)}\n${USAGE}`);
    return 2;
  }
  if (values.approve === true && values['no-approve'] === true) {
    process.stderr.write(`wfcli run: --approve and --no-approve exclude each other\n${USAGE}`);
    return 2;
  }
  if (values.script === undefined) {
    process.stderr.write(`wfcli run: --script is required (registered workflows arrive with the Pi host)\n${USAGE}`);
    return 2;
  }
  try {
    // Pi's SDK loads only for a run: `wfcli relay` and usage errors stay fast.
    const { runCommand } = await import('./run.js');
    return await runCommand(
      {
        script: values.script,
        ...(values.name === undefined ? {} : { name: values.name }),
        ...(values.input === undefined ? {} : { input: values.input }),
        ...(values.budget === undefined ? {} : { budget: values.budget }),
        ...(values.approve === true ? { approve: true } : values['no-approve'] === true ? { approve: false } : {}),
      },
      { cwd: process.cwd(), stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) },
    );
  } catch (error) {
    process.stderr.write(isWorkflowError(error) ? `${error.code}: ${error.message}\n` : `wfcli: ${messageOf(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
