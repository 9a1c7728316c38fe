/**
 * What the remote agents plugin accepts at its boundaries: the setting (global
 * file only, strict shape), the queued attempt a worker reads and the
 * outcome a host reads. Both sides treat the other's JSON as hostile.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ATTEMPT_FORMAT, attemptWorkflowId, identityKey, parseOutcome, parseRequest, resultBranch, turnWorkflowId, type AttemptRequest } from '../../../plugins/remote-agents/attempt.js';
import { continuedSession } from '../../../plugins/remote-agents/worker-continuation.js';
import { isConnectionError } from '../../../plugins/remote-agents/session.js';
import { parseRemoteSettings, validateRemoteSettings, wantsRemote } from '../../../plugins/remote-agents/settings.js';
import { thrownBy } from '../../support/engine-harness.js';

const identity = { structuralPath: ['parallel:a'], callSite: '1:5', occurrence: 0 };
const runId = 'wf-0mx0abcde-0123abcd';

function request(overrides: Partial<AttemptRequest> = {}): AttemptRequest {
  const workflowId = attemptWorkflowId(runId, identity, 1);
  return {
    format: ATTEMPT_FORMAT,
    workflowId,
    runId,
    identity,
    attempt: 1,
    label: 'a',
    model: '',
    prompt: 'task',
    tools: [],
    preparedTools: [],
    skills: [],
    extensions: [],
    excludeTools: [],
    settings: {},
    projectTrusted: false,
    repository: { remoteUrl: '/remote.git', baseCommit: 'a'.repeat(40), subdirectory: '', resultBranch: resultBranch(workflowId) },
    ...overrides,
  };
}

const outcome = { format: ATTEMPT_FORMAT, status: 'completed', submitted: { value: { result: 'ok' } }, stats: { inputTokens: 1, outputTokens: 1, costUsd: 0, turns: 1 }, model: 'e2e/m:off', sessionId: 'abc-1', transcript: '', executor: 'w' };

describe('remote agents settings', () => {
  it('takes a database URL and defaults the rest; refuses other shapes naming the file', () => {
    expect(parseRemoteSettings({ database: 'postgres://db/x' }, 'settings.json')).toEqual({ database: 'postgres://db/x', queue: 'pi-agents', remote: 'origin', agents: 'all' });
    for (const value of [{}, { database: 'mysql://db' }, { database: 'postgres://db', queue: 'a b' }, { database: 'postgres://db', remote: '--upload-pack=x' }, { database: 'postgres://db', extra: 1 }]) {
      const error = thrownBy(() => parseRemoteSettings(value, '/home/me/settings.json'));
      expect(error.code).toBe('CONFIG_ERROR');
      expect(error.message).toContain('/home/me/settings.json');
    }
  });

  it('refuses the key in a project file, by the file', () => {
    const error = thrownBy(() => validateRemoteSettings({ 'remote-agents': { database: 'postgres://db' } }, { source: 'project', path: '/p/.pi/pi-extensible-workflows/settings.json' }));
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toContain('/p/.pi/pi-extensible-workflows/settings.json');
    expect(error.message).toContain('global settings file only');
    expect(() => validateRemoteSettings({ 'remote-agents': { database: 'postgres://db' } }, { source: 'global' })).not.toThrow();
  });

  it('sends all agents, or those whose label matches', () => {
    expect(wantsRemote(parseRemoteSettings({ database: 'postgres://db' }, 'f'), 'x')).toBe(true);
    const some = parseRemoteSettings({ database: 'postgres://db', agents: { labels: ['build*'] } }, 'f');
    expect([wantsRemote(some, 'build-api'), wantsRemote(some, 'review')]).toEqual([true, false]);
  });
});

describe('the queue crossing', () => {
  it('names an attempt <run-id>/<identity>/<attempt>, the identity a stable digest', () => {
    expect(attemptWorkflowId(runId, identity, 2)).toBe(`${runId}/${identityKey(identity)}/2`);
    expect(identityKey(identity)).toMatch(/^[0-9a-f]{24}$/);
    expect(identityKey({ ...identity, occurrence: 1 })).not.toBe(identityKey(identity));
  });

  it('a worker refuses a queued attempt whose ID, commit or subdirectory is off', () => {
    expect(parseRequest(request()).workflowId).toBe(attemptWorkflowId(runId, identity, 1));
    const hostTools = [{ name: 'agent', description: 'Start a child', parameters: { type: 'object' } }];
    const ceiling = { tools: ['read'], skills: [], extensions: [] };
    expect(parseRequest(request({ hostTools, ceiling }))).toMatchObject({ hostTools, ceiling });
    const bad: unknown[] = [
      request({ hostTools: [{ ...hostTools[0], name: 'a b' }] as NonNullable<AttemptRequest['hostTools']> }),
      request({ hostTools: [{ name: 'agent', description: 'x', parameters: { type: 'object' }, execute: 'code' }] as unknown as NonNullable<AttemptRequest['hostTools']> }),
      request({ ceiling: { tools: 'all' } as unknown as NonNullable<AttemptRequest['ceiling']> }),
      request({ workflowId: `${runId}/other/1` }),
      request({ repository: { ...request().repository, baseCommit: 'HEAD' } }),
      request({ repository: { ...request().repository, subdirectory: '../escape' } }),
      request({ repository: { ...request().repository, subdirectory: '/etc' } }),
      request({ repository: { ...request().repository, resultBranch: 'main' } }),
      { ...request(), attempt: 0 },
      'not an object',
    ];
    for (const value of bad) expect(thrownBy(() => parseRequest(value)).code).toBe('AGENT_FAILED');
  });

  it('a host refuses a malformed outcome, naming the attempt', () => {
    expect(parseOutcome(outcome, 'id').status).toBe('completed');
    const bad: unknown[] = [
      { ...outcome, stats: { ...outcome.stats, inputTokens: -1 } },
      { ...outcome, commit: { branch: 'b', sha: 'not-a-sha' } },
      { ...outcome, error: { code: 'lower', message: 'x' } },
      { ...outcome, sessionId: '../../etc' },
      { ...outcome, extra: true },
    ];
    for (const value of bad) {
      const error = thrownBy(() => parseOutcome(value, 'wf-x/abc/1'));
      expect(error.code).toBe('AGENT_FAILED');
      expect(error.message).toContain('wf-x/abc/1');
    }
  });

  it('waits out a lost database connection, not an answer from DBOS', () => {
    expect(isConnectionError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isConnectionError(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isConnectionError(new Error('Workflow wf-x does not exist'))).toBe(false);
  });
});

describe("a handle's later turn on a worker", () => {
  const header = `${JSON.stringify({ type: 'session', version: 3, id: 's-1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w' })}\n`;
  const entry = `${JSON.stringify({ type: 'message', id: 'm1', parentId: null, message: { role: 'user', content: 'x' } })}\n`;
  const turn2 = (transcript: string): AttemptRequest => {
    const workflowId = turnWorkflowId(attemptWorkflowId(runId, identity, 1), 2);
    return request({ workflowId, continuation: { turn: 2, transcript }, repository: { remoteUrl: '/remote.git', baseCommit: 'b'.repeat(40), subdirectory: '', resultBranch: resultBranch(workflowId) } });
  };

  it('has its own workflow ID and branch, checked against its turn', () => {
    const base = attemptWorkflowId(runId, identity, 1);
    expect(turnWorkflowId(base, 1)).toBe(base);
    expect(turnWorkflowId(base, 2)).toBe(`${base}/t2`);
    // Not under the first turn's branch: git cannot hold both.
    expect(resultBranch(`${base}/t2`)).toBe(`wfcli/remote/${base}-t2`);
    expect(parseRequest(turn2(header)).continuation?.turn).toBe(2);
    expect(thrownBy(() => parseRequest({ ...turn2(header), workflowId: base }))).toMatchObject({ code: 'AGENT_FAILED' });
    expect(thrownBy(() => parseRequest({ ...turn2(header), continuation: { turn: 1, transcript: header } }))).toMatchObject({ code: 'AGENT_FAILED' });
  });

  it('writes a well-formed session file (0600) and refuses any other text, naming the attempt', () => {
    const root = mkdtempSync(join(tmpdir(), 'wfcli-continuation-'));
    try {
      expect(continuedSession(request(), root)).toBeUndefined();
      const written = continuedSession(turn2(header + entry), root);
      expect(readFileSync(written?.file ?? '', 'utf8')).toBe(header + entry);
      expect(statSync(written?.file ?? '').mode & 0o777).toBe(0o600);
      written?.remove();
      for (const [text, why] of [
        ['', 'it is empty'],
        [entry, 'its first line is not a Pi session header'],
        [`${header}not json\n`, 'line 2 is not JSON'],
        [`${header}[1]\n`, 'line 2 is not a session entry'],
        [`${header}{"id":"x"}\n`, 'line 2 is not a session entry'],
        [header + 'x'.repeat(10 * 1024 * 1024), 'larger than'],
      ] as const) {
        const error = thrownBy(() => continuedSession(turn2(text), root));
        expect(error).toMatchObject({ code: 'AGENT_FAILED' });
        expect((error as Error).message).toContain(why);
        expect((error as Error).message).toContain('/t2');
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
