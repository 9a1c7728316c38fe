/**
 * The workflow tools' Pi contract fields (spec 1 "Endpoints", docs/tools.md):
 * an output schema on every tool, the read-only hint, `exposure` from the
 * `codemodeTools` setting read when the factory registers the tools, and
 * results with `structuredContent` (failures as `isError` results) on a Pi
 * whose tool-call context has `executeTool`, today's details-and-throw on
 * one without. Real Pi 1.x code mode: test/e2e/script-tools.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExtensionContext } from '@earendil-works/pi-coding-agent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readCodemodeTools } from '../../../kernel/index.js';
import { createWorkflowHostExtension } from '../../../plugins/host/extension.js';
import { catalogTool, hostToolFields, statusTool, stopTool, workflowTool, WorkflowTools, type WorkflowToolDefinition } from '../../../plugins/host/tools/index.js';
import { ERROR_OUTPUT, STATUS_OUTPUT } from '../../../plugins/host/tools/schemas.js';
import { echoTransportPlugin } from '../../support/echo-transport.js';
import { writeGlobalSettings } from '../../support/engine-harness.js';
import { createHostFixture, expectValid, fakeContext, fakePi, type HostFixture } from './host-fixture.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wf-native-'));
  mkdirSync(join(dir, 'agent'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The tools the host factory registers with the agent dir's settings (the catalog comes at session start). */
function registered(): Map<string, WorkflowToolDefinition> {
  const pi = fakePi();
  createWorkflowHostExtension({ plugins: () => [echoTransportPlugin()], agentDir: join(dir, 'agent'), root: join(dir, 'runs'), home: dir })(pi.api);
  return pi.tools as Map<string, WorkflowToolDefinition>;
}

const exposures = (tools: Map<string, WorkflowToolDefinition>) => Object.fromEntries([...tools].map(([name, tool]) => [name, tool.exposure]));

describe('codemodeTools at registration', () => {
  it('all (the default): every workflow tool stays direct', () => {
    expect(new Set(Object.values(exposures(registered())))).toEqual(new Set(['direct']));
  });

  it('read-only: only workflow_status stays direct among the core tools; none: no tool does', () => {
    writeGlobalSettings(join(dir, 'agent'), { codemodeTools: 'read-only' });
    expect(exposures(registered())).toEqual({
      workflow: 'model-only',
      workflow_status: 'direct',
      workflow_resume: 'model-only',
      workflow_retry: 'model-only',
      workflow_respond: 'model-only',
      workflow_stop: 'model-only',
    });
    // A later registration (after /reload) reads the file again.
    writeGlobalSettings(join(dir, 'agent'), { codemodeTools: 'none' });
    expect(new Set(Object.values(exposures(registered())))).toEqual(new Set(['model-only']));
  });

  it('reads only the global file; a missing one is the default, an unreadable or invalid one counts as none', () => {
    const agentDir = join(dir, 'agent');
    expect(readCodemodeTools(agentDir)).toBe('all');
    writeGlobalSettings(agentDir, { codemodeTools: 'read-only', concurrency: 2 });
    expect(readCodemodeTools(agentDir)).toBe('read-only');
    writeGlobalSettings(agentDir, '\uFEFF{ "codemodeTools": "none" }');
    expect(readCodemodeTools(agentDir)).toBe('none');
    writeGlobalSettings(agentDir, { codemodeTools: 'all', colour: 'blue' });
    expect(readCodemodeTools(agentDir)).toBe('none');
    writeGlobalSettings(agentDir, '{ not json');
    expect(readCodemodeTools(agentDir)).toBe('none');
  });
});

describe('the contract fields of the workflow tools', () => {
  it('declare an output schema that admits the result and the error object; the read-only tools carry the hint', () => {
    const tools = registered();
    for (const tool of tools.values()) {
      expect(tool.outputSchema).toMatchObject({ anyOf: [expect.any(Object), ERROR_OUTPUT] });
      expect(tool.annotations).toEqual(tool.name === 'workflow_status' ? { readOnlyHint: true } : undefined);
    }
    expectValid(tools.get('workflow_status')!.outputSchema, { error: { code: 'RUN_NOT_FOUND', message: 'No run' } });
    expect(tools.get('workflow_status')!.outputSchema).toEqual({ anyOf: [STATUS_OUTPUT, ERROR_OUTPUT] });
  });

  it('workflow_catalog (registered at session start) and subagents_inspect count as read-only too', () => {
    const catalog = new WorkflowTools(fakePi().api, () => undefined, { codemodeTools: 'read-only' }).define(catalogTool);
    expect(catalog).toMatchObject({ exposure: 'direct', annotations: { readOnlyHint: true } });
    expect(hostToolFields('subagents_inspect', { outputSchema: { type: 'object' }, readOnly: true }, 'read-only')).toEqual({
      outputSchema: { anyOf: [{ type: 'object' }, ERROR_OUTPUT] },
      exposure: 'direct',
      annotations: { readOnlyHint: true },
    });
    expect(hostToolFields('subagents_inspect', { outputSchema: { type: 'object' }, readOnly: true }, 'none').exposure).toBe('model-only');
  });
});

describe('results on a Pi that reads structured content', () => {
  let fx: HostFixture;
  beforeEach(() => {
    fx = createHostFixture();
  });
  afterEach(() => fx.close());

  /** A tool-call context of Pi 1.x (it has `executeTool`). */
  const nested = (): ExtensionContext => Object.assign(fakeContext(fx.harness.cwd), { tools: [], executeTool: async () => ({}) });

  it('returns the result as structuredContent beside details and the JSON text', async () => {
    const definition = fx.tools.define(stopTool);
    const result = (await definition.execute('call-1', { runId: 'wf-000000000-00000000' } as never, undefined, undefined, nested())) as unknown as Record<string, unknown>;
    const value = { stopped: false, reason: 'unknown_run' };
    expect(result).toEqual({ content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], details: value, structuredContent: value });
  });

  it('answers a failure with an isError result carrying the error object, instead of throwing', async () => {
    const definition = fx.tools.define(statusTool);
    const result = (await definition.execute('call-2', { runId: 'wf-000000000-00000000' } as never, undefined, undefined, nested())) as unknown as Record<string, unknown>;
    const error = { code: 'RUN_NOT_FOUND', message: expect.stringContaining('wf-000000000-00000000'), details: { runId: 'wf-000000000-00000000' } };
    expect(result).toEqual({ content: [{ type: 'text', text: expect.stringMatching(/^RUN_NOT_FOUND: /) }], details: { error }, structuredContent: { error }, isError: true });
    expectValid(definition.outputSchema, result['structuredContent']);
  });

  it('shows every problem of a preflight refusal in the text, and each with its place in the error details', async () => {
    const definition = fx.tools.define(workflowTool);
    const script = "const t = Date.now();\nagent('late');\nreturn t;";
    const result = (await definition.execute('call-5', { name: 'w', script, foreground: true } as never, undefined, undefined, nested())) as unknown as {
      content: [{ text: string }];
      structuredContent: { error: { details: Record<string, unknown> } };
    };
    expect(result.content[0].text.split('\n')).toEqual([
      'INVALID_SYNTAX: The workflow script has 2 problems; fix all of them before launching it again:',
      expect.stringMatching(/^Line 1, column 11: Date\.now\(\) reads the clock/),
      expect.stringMatching(/^Line 2, column 1: agent\(\.\.\.\) starts work whose promise is never awaited/),
    ]);
    expect(result.structuredContent.error.details).toMatchObject({ line: 1, column: 11, count: 2, problems: [{ code: 'INVALID_SYNTAX', line: 1, column: 11 }, { code: 'INVALID_SYNTAX', line: 2, column: 1 }] });
    expectValid(definition.outputSchema, result.structuredContent);
  });

  it('keeps Pi 0.87\'s form where the context has no executeTool: details only, failures thrown', async () => {
    const definition = fx.tools.define(statusTool);
    await expect(definition.execute('call-3', { runId: 'wf-000000000-00000000' } as never, undefined, undefined, fakeContext(fx.harness.cwd))).rejects.toThrow(/^RUN_NOT_FOUND: /);
    const stopped = (await fx.tools.define(stopTool).execute('call-4', { runId: 'wf-000000000-00000000' } as never, undefined, undefined, fakeContext(fx.harness.cwd))) as unknown as Record<string, unknown>;
    expect(stopped).not.toHaveProperty('structuredContent');
  });
});
