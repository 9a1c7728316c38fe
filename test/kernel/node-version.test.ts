/** The Node.js floor of spec 1 (22.19), as `wfcli` and the host entry check it. */
import { describe, expect, it } from 'vitest';
import { MINIMUM_NODE_VERSION, assertSupportedNode, unsupportedNode } from '../../kernel/node-version.js';

describe('the Node.js version check', () => {
  it('refuses anything older than 22.19.0, naming both versions', () => {
    for (const version of ['20.20.2', 'v20.20.2', '22.18.9', '22.0.0', '18.19.1', '0.12.0']) {
      const message = unsupportedNode(version);
      expect(message, version).toContain(`needs Node.js ${MINIMUM_NODE_VERSION} or newer`);
      expect(message, version).toContain(`this is Node.js ${version}`);
    }
  });

  it('accepts 22.19.0 and newer', () => {
    for (const version of ['22.19.0', 'v22.19.0', '22.19.1', '22.23.3', '23.0.0', '24.1.0', '100.0.0']) expect(unsupportedNode(version), version).toBeUndefined();
  });

  it('refuses a version it cannot read', () => {
    expect(unsupportedNode('banana')).toContain('needs Node.js');
  });

  it('throws CONFIG_ERROR with the same sentence', () => {
    expect(() => assertSupportedNode('22.18.0')).toThrow(expect.objectContaining({ code: 'CONFIG_ERROR', message: expect.stringContaining('needs Node.js 22.19.0') }));
    expect(() => assertSupportedNode('22.19.0')).not.toThrow();
  });

  it('passes on the Node this suite runs on (npm puts Node 22 first)', () => {
    expect(unsupportedNode()).toBeUndefined();
  });
});
