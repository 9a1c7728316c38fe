/**
 * What the remote agents plugin accepts at its boundaries: the setting (global
 * file only, strict shape), the queued attempt a worker reads and the
 * outcome a host reads. Both sides treat the other's JSON as hostile.
 */
import { describe, expect, it } from 'vitest';
import { attemptWorkflowId, identityKey, parseOutcome, parseRequest, resultBranch, type AttemptRequest } from '../../../plugins/remote-agents/attempt.js';
import { isConnectionError } from '../../../plugins/remote-agents/session.js';
import { parseRemoteSettings, validateRemoteSettings, wantsRemote } from '../../../plugins/remote-agents/settings.js';
import { thrownBy } from '../../support/engine-harness.js';

const identity = { structuralPath: ['parallel:a'], callSite: '1:5', occurrence: 0 };
const runId = 'wf-0mx0abcde-0123abcd';

function request(overrides: Partial<AttemptRequest> = {}): AttemptRequest {
  const workflowId = attemptWorkflowId(runId, identity, 1);
  return {
    format: 1,
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

const outcome = { format: 1, status: 'completed', submitted: { value: { result: 'ok' } }, stats: { inputTokens: 1, outputTokens: 1, costUsd: 0, turns: 1 }, model: 'e2e/m:off', sessionId: 'abc-1', transcript: '', executor: 'w' };

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
    const bad: unknown[] = [
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
