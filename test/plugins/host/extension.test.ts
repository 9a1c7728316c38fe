/**
 * The extension factory's lifecycle with a double of Pi's API and context
 * (UI, modes): what the factory registers, what starts at session_start and
 * stops at session_shutdown, the catalog decision, one active host per
 * process, resume offers for interrupted runs, and the update notice.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExtensionContext } from '@earendil-works/pi-coding-agent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkpointsPlugin } from '../../../plugins/checkpoints/index.js';
import { evidencePlugin } from '../../../plugins/evidence/index.js';
import { createWorkflowHostExtension, type WorkflowHostOptions } from '../../../plugins/host/extension.js';
import { echoTransportPlugin } from '../../support/echo-transport.js';
import { waitFor, writeGlobalSettings } from '../../support/engine-harness.js';
import { fakePi, type FakePi } from './host-fixture.js';

const CORE_TOOLS = ['workflow', 'workflow_status', 'workflow_resume', 'workflow_retry', 'workflow_respond', 'workflow_stop'];

let dir: string;
let started: FakePi[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wf-ext-'));
  for (const name of ['agent', 'home', 'project']) mkdirSync(join(dir, name));
  started = [];
});
afterEach(async () => {
  for (const pi of started) await pi.emit({ type: 'session_shutdown' }, undefined);
  rmSync(dir, { recursive: true, force: true });
});

const cwd = () => join(dir, 'project');
const agentDir = () => join(dir, 'agent');

function load(options: Partial<WorkflowHostOptions> = {}): FakePi {
  const pi = fakePi();
  createWorkflowHostExtension({
    plugins: () => [checkpointsPlugin, evidencePlugin, echoTransportPlugin()],
    agentDir: agentDir(),
    root: join(dir, 'runs'),
    home: join(dir, 'home'),
    ...options,
  })(pi.api);
  return pi;
}

interface UiLog {
  readonly notices: string[];
  readonly confirms: string[];
}

function context(options: { hasUI?: boolean; mode?: string; confirm?: boolean; sessionId?: string; trusted?: boolean } = {}): ExtensionContext & { log: UiLog } {
  const log: UiLog = { notices: [], confirms: [] };
  return {
    cwd: cwd(),
    hasUI: options.hasUI ?? false,
    mode: options.mode ?? 'print',
    model: undefined,
    sessionManager: { getSessionId: () => options.sessionId ?? 'session-1', getSessionFile: () => undefined },
    // Pi trusts a project with nothing trust-requiring in it.
    isProjectTrusted: () => options.trusted ?? true,
    getContextUsage: () => undefined,
    ui: {
      notify: (message: string) => void log.notices.push(message),
      confirm: async (_title: string, message: string) => {
        log.confirms.push(message);
        return options.confirm ?? false;
      },
    },
    log,
  } as unknown as ExtensionContext & { log: UiLog };
}

async function startSession(pi: FakePi, ctx: ExtensionContext = context()): Promise<void> {
  await pi.emit({ type: 'session_start', reason: 'startup' }, ctx);
  started.push(pi);
}

async function run(pi: FakePi, tool: string, params: unknown, ctx: ExtensionContext = context()): Promise<Record<string, unknown>> {
  const result = await pi.tools.get(tool)!.execute('call', params as never, undefined, undefined, ctx);
  return result.details as Record<string, unknown>;
}

describe('the host extension factory', () => {
  it('registers the core tools and /workflow; the runtime starts only at session_start', async () => {
    const pi = load();
    expect([...pi.tools.keys()]).toEqual(CORE_TOOLS);
    expect(pi.commands).toEqual(['workflow']);
    await expect(run(pi, 'workflow_status', { runId: 'x' })).rejects.toThrow(/^INTERNAL_ERROR: The workflow runtime is not started/);
    await startSession(pi);
    await expect(run(pi, 'workflow_status', { runId: 'x' })).rejects.toThrow(/^RUN_NOT_FOUND: /);
    expect(pi.tools.has('workflow_catalog')).toBe(false);
  });

  it('registers workflow_catalog at session_start when settings are in effect', async () => {
    writeGlobalSettings(agentDir(), { concurrency: 2 });
    const pi = load();
    await startSession(pi);
    expect(pi.tools.get('workflow_catalog')).toMatchObject({ annotations: { readOnlyHint: true }, outputSchema: expect.any(Object) });
    expect(pi.tools.get('workflow_status')).toMatchObject({ annotations: { readOnlyHint: true } });
    expect(pi.tools.get('workflow')).not.toHaveProperty('annotations');
  });

  it('runs one host per process: a copy loaded while one runs registers nothing; shutdown is idempotent', async () => {
    const first = load();
    await startSession(first);
    const nested = load();
    expect(nested.tools.size).toBe(0);
    expect(nested.handlers.size).toBe(0);
    await first.emit({ type: 'session_shutdown' }, undefined);
    await first.emit({ type: 'session_shutdown' }, undefined);
    const next = load();
    await startSession(next);
    expect(await run(next, 'workflow', { name: 'n', script: 'return 1', foreground: true })).toMatchObject({ state: 'completed', value: 1 });
  });

  it('marks a run left by a previous host interrupted and, with UI, offers to resume it', async () => {
    const before = load();
    await startSession(before, context({ hasUI: true, mode: 'tui' }));
    const { runId } = await run(before, 'workflow', { name: 'gated', script: 'return await checkpoint({ name: "gate", prompt: "go?" })' });
    const state = async (pi: FakePi) => (await run(pi, 'workflow_status', { runId }))['state'];
    await waitFor(() => before.bus.some((entry) => entry.channel === 'workflow:checkpoint-state-changed'));
    await before.emit({ type: 'session_shutdown' }, undefined);

    const headless = load();
    await startSession(headless, context({ hasUI: false }));
    expect(await state(headless)).toBe('interrupted');
    await headless.emit({ type: 'session_shutdown' }, undefined);

    // In a project Pi does not trust nothing resumes, so nothing is offered.
    const untrusted = load();
    const refusing = context({ hasUI: true, mode: 'tui', confirm: true, trusted: false });
    await startSession(untrusted, refusing);
    expect(refusing.log.confirms).toEqual([]);
    expect(await state(untrusted)).toBe('interrupted');
    await untrusted.emit({ type: 'session_shutdown' }, undefined);

    const after = load();
    const ctx = context({ hasUI: true, mode: 'tui', confirm: true });
    await startSession(after, ctx);
    await waitFor(() => after.bus.filter((entry) => entry.channel === 'workflow:checkpoint-state-changed').length > 0);
    expect(ctx.log.confirms).toEqual([expect.stringContaining(`"gated" (${String(runId)}) was interrupted`)]);
    expect(await state(after)).toBe('awaiting_input');
    const next = after.nextMessage();
    await run(after, 'workflow_respond', { runId, name: 'gate', approved: true });
    expect((await next).message.details).toMatchObject({ runId, state: 'completed', value: 'approved' });
  });

  it('shows the update notice in interactive mode only', async () => {
    const root = join(dir, 'package');
    mkdirSync(root);
    writeFileSync(join(root, 'CHANGELOG.md'), '# Changelog\n\n## [0.1.0] - 2026-01-01\n\n- First release.\n');
    const pkg = { root, version: '0.1.0', sourceCheckout: false };

    const print = load({ package: pkg });
    const quiet = context({ hasUI: false, mode: 'print' });
    await startSession(print, quiet);
    expect(quiet.log.notices).toEqual([]);
    await print.emit({ type: 'session_shutdown' }, undefined);

    const tui = load({ package: pkg });
    const interactive = context({ hasUI: true, mode: 'tui' });
    await startSession(tui, interactive);
    expect(interactive.log.notices).toEqual([expect.stringContaining('- First release.')]);
  });
});
