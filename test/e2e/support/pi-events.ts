/** Reading the JSONL event stream of `pi --mode json` (one record per LF). */

export interface ToolExecution {
  readonly toolName: string;
  readonly toolCallId: string;
  /** Set for a call another tool made through Pi's executor (`ctx.executeTool`, Pi 0.99+). */
  readonly parentToolCallId?: string;
  readonly isError: boolean;
  /** The text parts of the tool result, joined. */
  readonly text: string;
  readonly details: unknown;
}

interface ToolExecutionEnd {
  readonly type: 'tool_execution_end';
  readonly toolName: string;
  readonly toolCallId: string;
  readonly parentToolCallId?: string;
  readonly isError: boolean;
  readonly result: { readonly content?: readonly { readonly type: string; readonly text?: string }[]; readonly details?: unknown };
}

export function jsonEvents(stdout: string): { readonly type: string }[] {
  return stdout
    .split('\n')
    .map((line) => line.replace(/\r$/, ''))
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { type: string });
}

/** The finished tool executions of a JSON-mode run, in order. */
export function toolExecutions(stdout: string): ToolExecution[] {
  return jsonEvents(stdout)
    .filter((event): event is ToolExecutionEnd => event.type === 'tool_execution_end')
    .map((event) => ({
      toolName: event.toolName,
      toolCallId: event.toolCallId,
      ...(event.parentToolCallId === undefined ? {} : { parentToolCallId: event.parentToolCallId }),
      isError: event.isError,
      text: (event.result.content ?? []).map((part) => part.text ?? '').join(''),
      details: event.result.details,
    }));
}

/** The one execution of `toolName` the model made (calls made by tools are not counted); throws naming what ran instead. */
export function toolExecution(stdout: string, toolName: string): ToolExecution {
  const found = toolExecutions(stdout).filter((execution) => execution.toolName === toolName && execution.parentToolCallId === undefined);
  if (found.length !== 1 || found[0] === undefined) {
    throw new Error(`expected one ${toolName} execution, got: ${JSON.stringify(toolExecutions(stdout))}`);
  }
  return found[0];
}
