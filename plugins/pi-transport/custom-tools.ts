/**
 * `SessionInput.customTools` → Pi tool definitions. The kernel contract only
 * declares name, description and parameters; a tool is runnable here when the
 * object also carries `execute(params, { signal })` (a setup hook supplies
 * it). Tools named in `excludeTools` are dropped (spec 2 "AgentSetupHook").
 */
import type { TSchema } from '@earendil-works/pi-ai';
import { defineTool, type ToolDefinition } from '@earendil-works/pi-coding-agent';
import type { CustomToolDefinition } from '../../kernel/contracts/setup.js';
import { WorkflowError } from '../../kernel/errors.js';
import type { JsonValue } from '../../kernel/json.js';

export interface ExecutableCustomTool extends CustomToolDefinition {
  execute(params: JsonValue, context: { readonly signal?: AbortSignal | undefined }): JsonValue | Promise<JsonValue>;
}

function isExecutable(tool: CustomToolDefinition): tool is ExecutableCustomTool {
  return typeof (tool as Partial<ExecutableCustomTool>).execute === 'function';
}

function toPiTool(tool: ExecutableCustomTool): ToolDefinition {
  return defineTool({
    name: tool.name,
    label: tool.name,
    description: tool.description,
    parameters: tool.parameters as unknown as TSchema,
    async execute(_toolCallId, params, signal) {
      const output = await tool.execute(JSON.parse(JSON.stringify(params ?? null)) as JsonValue, { signal });
      const text = typeof output === 'string' ? output : JSON.stringify(output);
      return { content: [{ type: 'text', text }], details: undefined };
    },
  });
}

/** Throws `INVALID_METADATA` for a kept tool without `execute`: the model must never see a tool nobody runs. */
export function customPiTools(tools: readonly CustomToolDefinition[] | undefined, excludeTools: readonly string[]): ToolDefinition[] {
  const excluded = new Set(excludeTools);
  return (tools ?? [])
    .filter((tool) => !excluded.has(tool.name))
    .map((tool) => {
      if (!isExecutable(tool)) throw new WorkflowError('INVALID_METADATA', `custom tool "${tool.name}" has no execute function`, { tool: tool.name });
      return toPiTool(tool);
    });
}
