/**
 * The behaviour suite against the Node adapter, plus what only the Node
 * adapter has (the `ws` frame limits, the command line).
 */
import { describe, expect, it, vi } from 'vitest';
import { main } from '../../relay/cli.js';
import { parseHost, parsePort } from '../../relay/node/run.js';
import { startNodeBridge } from '../../relay/node/server.js';
import { httpGet, newAuthorityKey, TestSocket, wsUrl } from './behaviour/client.js';
import { defineBehaviourSuite } from './behaviour/suite.js';

defineBehaviourSuite('relay bridge (node adapter)', async (env) => {
  const bridge = await startNodeBridge({ port: 0, env });
  return { url: bridge.url, close: () => bridge.close(), roomCount: () => bridge.stats().rooms };
});

describe('node adapter specifics', () => {
  it('an invalid UTF-8 text frame and a frame far over the limit close with 4400 (not ws 1007/1009)', async () => {
    const bridge = await startNodeBridge({ port: 0, env: { MAX_MESSAGE_BYTES: '1024' } });
    try {
      for (const frame of [Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), Buffer.alloc(1024 * 1024, 0x41)]) {
        const key = await newAuthorityKey();
        const socket = new TestSocket(wsUrl(bridge.url, `/authority/${key.id}`));
        await socket.expect('challenge');
        socket.ws.send(frame, { binary: false });
        expect((await socket.closedWithin()).code).toBe(4400);
      }
      expect((await httpGet(bridge.url, '/health')).status).toBe(200);
    } finally {
      await bridge.close();
    }
  });

  it('HEAD has no body; a failing share page answers 500 and the bridge goes on', async () => {
    const bridge = await startNodeBridge({
      port: 0,
      sharePage: () => {
        throw new Error('broken');
      },
    });
    try {
      const head = await httpGet(bridge.url, '/health', {}, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.body).toBe('');
      expect((await httpGet(bridge.url, '/share/abc')).status).toBe(500);
      expect((await httpGet(bridge.url, '/')).body).toBe('pi relay bridge\n');
    } finally {
      await bridge.close();
    }
  });

  it('binds to loopback by default; close() ends open sockets with 1001', async () => {
    const bridge = await startNodeBridge({ port: 0 });
    expect(bridge.host).toBe('127.0.0.1');
    expect(bridge.url).toBe(`http://127.0.0.1:${bridge.port}`);
    const key = await newAuthorityKey();
    const socket = new TestSocket(wsUrl(bridge.url, `/authority/${key.id}`));
    await socket.expect('challenge');
    await bridge.close();
    expect((await socket.closedWithin()).code).toBe(1001);
  });

  it('live sockets survive heartbeats', async () => {
    // Five heartbeats; a pong may be late by up to one period (a stall on this shared event loop) before the socket goes.
    const bridge = await startNodeBridge({ port: 0, heartbeatMs: 250 });
    try {
      const key = await newAuthorityKey();
      const socket = new TestSocket(wsUrl(bridge.url, `/authority/${key.id}`));
      await socket.expect('challenge');
      await new Promise((resolve) => setTimeout(resolve, 1300));
      expect(socket.isOpen()).toBe(true);
    } finally {
      await bridge.close();
    }
  });

  it('startNodeBridge rejects an invalid variable with a RelayPolicyError', async () => {
    await expect(startNodeBridge({ port: 0, env: { BRIDGE_MODE: 'mesh' } })).rejects.toMatchObject({ name: 'RelayPolicyError', variable: 'BRIDGE_MODE' });
  });
});

describe('relay command line', () => {
  function io(env: Record<string, string> = {}) {
    let stop!: () => void;
    const out: string[] = [];
    const err: string[] = [];
    return {
      out,
      err,
      stop: () => stop(),
      io: { env, stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t), stopSignal: new Promise<void>((resolve) => (stop = resolve)) },
    };
  }

  it('serves on --port/--host, prints the address, stops on the signal', async () => {
    const run = io({ BRIDGE_MODE: 'signaling-only', PORT: '1' });
    const exit = main(['--port', '0', '--host', '127.0.0.1'], run.io);
    await vi.waitFor(() => expect(run.out.join('')).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+ \(mode signaling-only\)/), { timeout: 10_000, interval: 10 });
    const url = /(http:\/\/\S+)/.exec(run.out.join(''))![1]!;
    expect(JSON.parse((await httpGet(url, '/health')).body)).toEqual({ status: 'ok', mode: 'signaling-only' });
    run.stop();
    expect(await exit).toBe(0);
    expect(run.out.join('')).toContain('stopping');
  });

  it('PORT and HOST from the environment', async () => {
    const run = io({ PORT: '0', HOST: '127.0.0.1' });
    const exit = main([], run.io);
    await vi.waitFor(() => expect(run.out.join('')).toContain('listening on http://127.0.0.1:'), { timeout: 10_000, interval: 10 });
    run.stop();
    expect(await exit).toBe(0);
  });

  it('invalid configuration exits 2 naming the variable or flag; --help exits 0', async () => {
    for (const [argv, env, named] of [
      [[], { MAX_CONNECTIONS: '0' }, 'MAX_CONNECTIONS'],
      [[], { PORT: '70000' }, 'PORT'],
      [['--port', 'x'], {}, '--port'],
      [['--host', ''], {}, '--host'],
      [['--verbose'], {}, 'verbose'],
    ] as const) {
      const run = io({ ...env });
      expect(await main([...argv], run.io)).toBe(2);
      expect(run.err.join('')).toContain(named);
    }
    const help = io();
    expect(await main(['--help'], help.io)).toBe(0);
    expect(help.out.join('')).toContain('--port');
  });

  it('parsePort and parseHost', () => {
    expect(parsePort(undefined)).toBe(8787);
    expect(parsePort('0')).toBe(0);
    expect(parsePort('65535')).toBe(65535);
    expect(() => parsePort('65536')).toThrow('PORT');
    expect(() => parsePort('080')).toThrow('PORT');
    expect(parseHost(undefined)).toBe('127.0.0.1');
    expect(parseHost('::1')).toBe('::1');
    expect(() => parseHost('a b')).toThrow('HOST');
  });
});

describe('node adapter: MAX_CONNECTIONS counts the whole process', () => {
  it('sockets of different rooms share the cap', async () => {
    const bridge = await startNodeBridge({ port: 0, env: { MAX_CONNECTIONS: '2' } });
    try {
      const sockets: TestSocket[] = [];
      for (let i = 0; i < 2; i++) {
        const key = await newAuthorityKey();
        const socket = new TestSocket(wsUrl(bridge.url, `/authority/${key.id}`));
        sockets.push(socket);
        await socket.expect('challenge');
      }
      const over = new TestSocket(wsUrl(bridge.url, `/authority/${(await newAuthorityKey()).id}`));
      expect((await over.closedWithin()).code).toBe(4429);
      expect(over.received).toEqual([]);
      expect(bridge.stats()).toMatchObject({ sockets: 2, pendingAuthorities: 2, rooms: 0 });
      for (const socket of sockets) socket.close();
    } finally {
      await bridge.close();
    }
  });
});
