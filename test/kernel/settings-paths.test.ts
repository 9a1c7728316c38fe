import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAgentDir, settingsPaths } from '../../kernel/settings/index.js';

describe('resolveAgentDir', () => {
  it('defaults to ~/.pi/agent', () => {
    expect(resolveAgentDir({}, '/home/u')).toBe(path.join('/home/u', '.pi', 'agent'));
  });

  it('uses PI_CODING_AGENT_DIR when set', () => {
    expect(resolveAgentDir({ PI_CODING_AGENT_DIR: '/custom/agent' }, '/home/u')).toBe('/custom/agent');
  });

  it('expands ~ in PI_CODING_AGENT_DIR from the given home', () => {
    expect(resolveAgentDir({ PI_CODING_AGENT_DIR: '~/pi-agent' }, '/home/u')).toBe('/home/u/pi-agent');
    expect(resolveAgentDir({ PI_CODING_AGENT_DIR: '~' }, '/home/u')).toBe('/home/u');
  });

  it('ignores an empty PI_CODING_AGENT_DIR', () => {
    expect(resolveAgentDir({ PI_CODING_AGENT_DIR: '' }, '/home/u')).toBe('/home/u/.pi/agent');
  });

  it('reads process.env by default', () => {
    const saved = process.env['PI_CODING_AGENT_DIR'];
    process.env['PI_CODING_AGENT_DIR'] = '/from/process/env';
    try {
      expect(resolveAgentDir()).toBe('/from/process/env');
    } finally {
      if (saved === undefined) delete process.env['PI_CODING_AGENT_DIR'];
      else process.env['PI_CODING_AGENT_DIR'] = saved;
    }
  });
});

describe('settingsPaths', () => {
  it('computes the global and project settings paths', () => {
    expect(settingsPaths('/work/repo', '/home/u/.pi/agent')).toEqual({
      agentDir: '/home/u/.pi/agent',
      globalPath: '/home/u/.pi/agent/pi-extensible-workflows/settings.json',
      projectPath: '/work/repo/.pi/pi-extensible-workflows/settings.json',
    });
  });

  it('resolves a relative cwd', () => {
    expect(settingsPaths('repo', '/a').projectPath).toBe(
      path.join(process.cwd(), 'repo', '.pi', 'pi-extensible-workflows', 'settings.json'),
    );
  });
});
