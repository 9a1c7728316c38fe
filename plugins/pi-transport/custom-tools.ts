/**
 * `SessionInput.customTools` → Pi tool definitions. `execute` runs in the
 * host when the model calls the tool; its JSON result goes back to the model
 * (a string as is), a throw becomes a tool error. Tools named in
 * `excludeTools` are dropped (spec 2 "AgentSetupHook").
 */
import type { TSchema } from 'typebox';
import { defineTool, type ToolDefinition } from '@earendil-works/pi-coding-agent';
import type { CustomToolDefinition } from '../../kernel/index.js';
import { WorkflowError, boundaryCopy } from '../../kernel/index.js';

function toPiTool(tool: CustomToolDefinition): ToolDefinition {
  return defineTool({
    name: tool.name,
    label: tool.name,
    description: tool.description,
    parameters: tool.parameters as unknown as TSchema,
    async execute(_toolCallId, params, signal) {
      const input = boundaryCopy(params, `The parameters of ${tool.name}`);
      const output = await tool.execute(input, signal ?? new AbortController().signal);
      const text = typeof output === 'string' ? output : JSON.stringify(output);
      return { content: [{ type: 'text', text }], details: undefined };
    },
  });
}

/** A kept tool without `execute` is `INVALID_METADATA`: the model must never see a tool nobody runs. */
export function customPiTools(tools: readonly CustomToolDefinition[] | undefined, excludeTools: readonly string[]): ToolDefinition[] {
  const excluded = new Set(excludeTools);
  return (tools ?? [])
    .filter((tool) => !excluded.has(tool.name))
    .map((tool) => {
      if (typeof (tool as Partial<CustomToolDefinition>).execute !== 'function') {
        throw new WorkflowError('INVALID_METADATA', `custom tool "${tool.name}" has no execute function`, { tool: tool.name });
      }
      return toPiTool(tool);
    });
}
