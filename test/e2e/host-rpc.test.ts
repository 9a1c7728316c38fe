/**
 * What a Pi session with a UI shows of background runs (issue 29 item 18),
 * through `pi --mode rpc`: a real Pi whose UI is the RPC client, so the
 * background widget's lines arrive as `setWidget` requests on stdout and its
 * receipts land in the session file.
 *
 * - A receipt's duration is the run's active time: the wait for a
 *   checkpoint decision does not count.
 * - A standalone subagent reads as `subagent <label>` on the widget and
 *   `Subagent <label>` on its receipt, not as a workflow named `subagent`.
 * - A subagent's token count includes the model answer that asked for the
 *   tool it is running now, not only turns that ended.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPiHome, installPackage, PI_CLI, piEnv, type PiHome } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const SESSION = 'rpc-ui';

interface Receipt {
  readonly runId: string;
  readonly workflow: string;
  readonly title?: string;
  readonly state: string;
  readonly durationMs: number;
}

/** Every `.jsonl` file below a directory. */
function sessionFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sessionFiles(path) : name.endsWith('.jsonl') ? [path] : [];
  });
}

/** The receipts the background widget appended to this session's file. */
function receipts(pi: PiHome): Receipt[] {
  return sessionFiles(join(pi.agentDir, 'sessions'))
    .flatMap((file) => readFileSync(file, 'utf8').split('\n'))
    .filter((line) => line.includes('"workflow-receipt"'))
    .map((line) => (JSON.parse(line) as { data: Receipt }).data);
}

async function until<T>(what: string, check: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('background runs in a Pi session with a UI (RPC mode)', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    await installPackage(pi);
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  it('receipts count active time only; subagents read as subagents; a subagent counts the tokens of the answer whose tool runs', async () => {
    const started = join(pi.cwd, 'helper.started');
    const go = join(pi.cwd, 'helper.go');
    // The subagent's first answer asks for a shell command that waits for the test; its second submits the result.
    model.agent('Token helper', ({ request }) =>
      request === 1
        ? { toolCalls: [{ name: 'bash', arguments: { command: `touch ${started}; while [ ! -f ${go} ]; do sleep 0.05; done; echo ok` } }] }
        : { toolCalls: [{ name: 'workflow_result', arguments: { result: 'helped' } }] },
    );
    const ids: { gated?: string; helper?: string } = {};
    let inspected: { usage: { inputTokens: number; outputTokens: number }; progress: { turns: number; lastTool?: string } } | undefined;
    let waitStarted = 0;
    let answeredAt = 0;
    const snapshotState = (runId: string): string => (JSON.parse(readFileSync(join(pi.runDir(SESSION, runId), 'snapshot.json'), 'utf8')) as { state: string }).state;
    model.main(async ({ prompt, toolResults }) => {
      if (prompt !== 'Go') return { text: 'noted' };
      if (toolResults.length === 0) {
        return {
          toolCalls: [
            { name: 'workflow', arguments: { name: 'gated', script: "const approved = await checkpoint({ name: 'ship', prompt: 'Ship it?' });\nreturn approved;" } },
            { name: 'subagents_run', arguments: { prompt: 'Token helper', label: 'helper' } },
          ],
        };
      }
      if (toolResults.length === 2) {
        ids.gated = (JSON.parse(toolResults[0] ?? '{}') as { runId: string }).runId;
        ids.helper = (JSON.parse(toolResults[1] ?? '{}') as { runId: string }).runId;
        const gated = ids.gated;
        await until('the checkpoint and the running tool', () => (existsSync(started) && snapshotState(gated) === 'awaiting_input' ? true : undefined));
        waitStarted = Date.now();
        return { toolCalls: [{ name: 'subagents_inspect', arguments: { runId: ids.helper } }] };
      }
      if (toolResults.length === 3) {
        inspected = JSON.parse(toolResults[2] ?? '{}') as typeof inspected;
        writeFileSync(go, '');
        const helper = ids.helper ?? '';
        await until('the subagent to end', () => (snapshotState(helper) === 'completed' ? true : undefined));
        answeredAt = Date.now();
        return { toolCalls: [{ name: 'workflow_respond', arguments: { runId: ids.gated, name: 'ship', approved: true } }] };
      }
      return { text: 'waiting for the runs' };
    });

    const child = spawn(process.execPath, [PI_CLI, '--mode', 'rpc', '--approve', '--session-id', SESSION], { cwd: pi.cwd, env: piEnv(pi), stdio: ['pipe', 'pipe', 'pipe'] });
    const widgets: string[][] = [];
    let buffered = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (data: string) => (stderr += data));
    child.stdout.setEncoding('utf8').on('data', (data: string) => {
      buffered += data;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const record = JSON.parse(line) as { type?: string; method?: string; widgetKey?: string; widgetLines?: string[] };
        if (record.type === 'extension_ui_request' && record.method === 'setWidget' && record.widgetKey === 'workflow-background' && record.widgetLines !== undefined) widgets.push(record.widgetLines);
      }
    });
    try {
      child.stdin.write(`${JSON.stringify({ type: 'prompt', message: 'Go' })}\n`);
      const ended = await until('both receipts', () => {
        const found = receipts(pi);
        return found.length >= 2 ? found : undefined;
      }, 50_000).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}\nstderr:\n${stderr}`);
      });

      // The subagent's first answer (its bash call) was charged while the command still ran.
      expect(inspected?.progress).toMatchObject({ turns: 1, lastTool: 'bash' });
      expect((inspected?.usage.inputTokens ?? 0) + (inspected?.usage.outputTokens ?? 0)).toBeGreaterThan(0);

      const helperLine = widgets.flat().find((line) => line.includes(ids.helper ?? '-'));
      expect(helperLine).toMatch(/^◆ subagent helper · wf-/);
      const helper = ended.find((receipt) => receipt.runId === ids.helper);
      expect(helper).toMatchObject({ title: 'Subagent helper', state: 'completed' });

      const gated = ended.find((receipt) => receipt.runId === ids.gated);
      expect(gated).toMatchObject({ workflow: 'gated', state: 'completed' });
      expect(gated).not.toHaveProperty('title');
      const snapshot = JSON.parse(readFileSync(join(pi.runDir(SESSION, ids.gated ?? ''), 'snapshot.json'), 'utf8')) as { createdAt: string; terminalAt: string; activeMs: number };
      const wall = Date.parse(snapshot.terminalAt) - Date.parse(snapshot.createdAt);
      // The run waited for its decision at least from the test's first look to the answer.
      expect(answeredAt - waitStarted).toBeGreaterThan(100);
      expect(gated?.durationMs).toBe(snapshot.activeMs);
      expect(gated?.durationMs ?? wall).toBeLessThanOrEqual(wall - (answeredAt - waitStarted) + 50);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
