/**
 * A logging tap between clients and the Node bridge: an HTTP front that
 * records every request (method, path, headers, body) and, for WebSocket
 * upgrades, every frame in both directions (unmasked, reassembled). It is
 * what "the server received" in the share page tests.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import type { NodeBridge } from '../../../relay/index.js';

export interface Tap {
  readonly requests: { method: string; url: string; headers: string; body: string }[];
  /** Every WebSocket message, both directions, as text (binary frames as latin1). */
  readonly messages: { connection: number; path: string; direction: 'to-bridge' | 'from-bridge'; text: string }[];
  readonly closes: { connection: number; direction: 'to-bridge' | 'from-bridge'; code: number }[];
  everything(): string;
}

/** Reads WebSocket frames from one direction of a connection (after an optional HTTP head). */
class FrameReader {
  #buffer = Buffer.alloc(0);
  #headDone: boolean;
  #fragments: Buffer[] = [];
  #fragmentOpcode = 0;
  readonly #onMessage: (opcode: number, payload: Buffer) => void;
  constructor(skipHead: boolean, onMessage: (opcode: number, payload: Buffer) => void) {
    this.#headDone = !skipHead;
    this.#onMessage = onMessage;
  }
  push(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    if (!this.#headDone) {
      const end = this.#buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      this.#buffer = this.#buffer.subarray(end + 4);
      this.#headDone = true;
    }
    for (;;) {
      const b = this.#buffer;
      if (b.length < 2) return;
      const fin = (b[0]! & 0x80) !== 0;
      const opcode = b[0]! & 0x0f;
      const masked = (b[1]! & 0x80) !== 0;
      let length = b[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (b.length < 4) return;
        length = b.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (b.length < 10) return;
        length = Number(b.readBigUInt64BE(2));
        offset = 10;
      }
      const maskOffset = offset;
      if (masked) offset += 4;
      if (b.length < offset + length) return;
      const payload = Buffer.from(b.subarray(offset, offset + length));
      if (masked) for (let i = 0; i < payload.length; i++) payload[i]! ^= b[maskOffset + (i % 4)]!;
      this.#buffer = b.subarray(offset + length);
      if (opcode >= 8) {
        this.#onMessage(opcode, payload);
        continue;
      }
      if (opcode !== 0) this.#fragmentOpcode = opcode;
      this.#fragments.push(payload);
      if (fin) {
        this.#onMessage(this.#fragmentOpcode, Buffer.concat(this.#fragments));
        this.#fragments = [];
      }
    }
  }
}

export async function startTap(bridge: NodeBridge): Promise<{ url: string; tap: Tap; close(): Promise<void> }> {
  const tap: Tap = {
    requests: [],
    messages: [],
    closes: [],
    everything: () =>
      JSON.stringify({ requests: tap.requests, messages: tap.messages.map((message) => message.text) }),
  };
  const sockets = new Set<Socket>();
  let connections = 0;
  const log = (req: IncomingMessage, body: string) =>
    tap.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.rawHeaders.join('\n'), body });

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      log(req, body.toString('latin1'));
      const upstream = httpRequest(
        { host: bridge.host, port: bridge.port, method: req.method, path: req.url, headers: req.headers },
        (response) => {
          res.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (req: IncomingMessage, client: Socket, head: Buffer) => {
    log(req, '');
    const connection = ++connections;
    const path = req.url ?? '';
    const record = (direction: 'to-bridge' | 'from-bridge') => (opcode: number, payload: Buffer) => {
      if (opcode === 8) tap.closes.push({ connection, direction, code: payload.length >= 2 ? payload.readUInt16BE(0) : 1005 });
      else if (opcode === 1 || opcode === 2) tap.messages.push({ connection, path, direction, text: payload.toString(opcode === 1 ? 'utf8' : 'latin1') });
    };
    const toBridge = new FrameReader(false, record('to-bridge'));
    const fromBridge = new FrameReader(true, record('from-bridge'));
    const upstream = netConnect(bridge.port, bridge.host, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) {
        toBridge.push(head);
        upstream.write(head);
      }
      client.on('data', (chunk: Buffer) => {
        toBridge.push(chunk);
        upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => {
        fromBridge.push(chunk);
        client.write(chunk);
      });
    });
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    client.on('close', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    tap,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
