/**
 * `tools.<name>(args)` in scripts (spec 1 "Script language"): a namespace
 * primitive whose calls the engine journals and replays, so a resumed run
 * never executes a completed call again. The host session behind it decides
 * which tools are callable and runs them; without one nothing is callable.
 */
import { WorkflowError, type JsonValue, type PrimitiveDefinition } from '../../kernel/index.js';

export const TOOLS_PRIMITIVE = 'tools';

/** What the Pi session offers scripts. */
export interface ScriptTools {
  /** Why `name` cannot be called, or undefined when it can. */
  refusal(name: string): string | undefined;
  /** Runs one new call of a run; rejects with TOOL_FAILED. */
  call(runId: string, name: string, args: JsonValue, cwd: string, signal: AbortSignal): Promise<JsonValue>;
}

const NO_SESSION = 'no Pi session is running this workflow';

/** UNKNOWN_TOOL before the run exists (and before any agent runs) for every name that cannot be called. */
export function checkToolNames(names: readonly string[], tools: ScriptTools | undefined): void {
  const refusals = names.map((name) => (tools ? tools.refusal(name) : `tools.${name}: ${NO_SESSION}`)).filter((reason) => reason !== undefined);
  if (refusals.length > 0) throw new WorkflowError('UNKNOWN_TOOL', refusals.join('; '), { tools: [...names] });
}

export function toolsPrimitive(tools: () => ScriptTools | undefined): PrimitiveDefinition {
  return {
    name: TOOLS_PRIMITIVE,
    kind: 'namespace',
    run(call, context) {
      const name = call.member ?? '';
      const fail = (why: string) => new WorkflowError('TOOL_FAILED', `tools.${name} ${why}`, { tool: name });
      if (call.args.length > 1) throw fail('takes one argument object');
      if (call.cwd !== context.run.cwd) throw fail('cannot be called inside withWorktree: host tools run in the launch cwd, not the worktree');
      const session = tools();
      if (!session) throw fail(`cannot run: ${NO_SESSION}`);
      const refusal = session.refusal(name);
      if (refusal !== undefined) throw fail(`cannot run: ${refusal}`);
      return session.call(context.run.runId, name, call.args[0] ?? {}, context.run.cwd, context.signal);
    },
  };
}
