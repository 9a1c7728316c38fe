/** Checks the `/workflow` subcommands plugins claim (registry.commands): well-formed, unique names. */
import { WorkflowError } from '../errors.js';
import type { WorkflowSubcommand } from '../contracts/subcommand.js';

const NAME = /^[a-z][a-z0-9-]*$/;

export function checkSubcommands(commands: readonly WorkflowSubcommand[]): readonly WorkflowSubcommand[] {
  const seen = new Set<string>();
  for (const command of commands) {
    if (typeof command.name !== 'string' || !NAME.test(command.name)) {
      throw new WorkflowError('CONFIG_ERROR', `a /workflow subcommand name must match ${NAME.source} (got ${JSON.stringify(command.name)})`);
    }
    if (seen.has(command.name)) throw new WorkflowError('CONFIG_ERROR', `two plugins claim the /workflow subcommand "${command.name}"`, { name: command.name });
    seen.add(command.name);
  }
  return Object.freeze([...commands]);
}
