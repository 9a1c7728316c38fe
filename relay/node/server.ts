/**
 * The Node adapter: `node:http` + `ws` around the pure core. It maps socket
 * IDs to `ws` sockets and applies the core's actions; every decision lives in
 * `relay/core`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { CLOSE, createRelayCore, type Action, type HttpResponse, type Outcome, type RelayCore, type RelayPolicy, type RelayStats } from '../core/index.js';
import { ConnectionTable, type ConnectionStats } from './connections.js';
import { measureDescriptors, type DescriptorBudget } from './descriptors.js';
import { OVER_CAPACITY, refuseOverCapacity, rejectUpgrade } from './http-answers.js';
import { slabAllocator } from './slab.js';

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';
/** Interval of WebSocket-level pings; a socket that misses one pong is dropped. */
export const HEARTBEAT_MS = 30_000;
const TEXT_FRAME = { binary: false } as const;

export interface NodeBridgeOptions {
  /** Default 8787; 0 picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1 (loopback only). */
  readonly host?: string;
  /** Policy variables (validated; an invalid value rejects with `RelayPolicyError`). Default `{}`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** An already parsed policy, instead of `env`. */
  readonly policy?: RelayPolicy;
  /** Share page app shell; default the core's (`relay/share/page.ts`). */
  readonly sharePage?: () => string;
  /** Share app script; default the core's (`relay/share/page.ts`). */
  readonly shareScript?: () => string;
  /** Default {@link HEARTBEAT_MS}. */
  readonly heartbeatMs?: number;
  /**
   * Connections held at most (every stage: handshakes, WebSockets, closing).
   * Default: from the process's descriptor limit (`descriptors.ts`); unlimited when that is unknown.
   */
  readonly connectionCapacity?: number;
}

export interface NodeBridge {
  /** `http://host:port` */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly core: RelayCore;
  stats(): RelayStats;
  /** The TCP connections held, by stage, and the most that may be (`connections.ts`). */
  connections(): ConnectionStats;
  /** The process's descriptor limit as measured at start, and what it leaves for connections. */
  readonly descriptors: DescriptorBudget;
  /** Closes every socket (1001) and the server. */
  close(): Promise<void>;
}

/**
 * `ws` closes a socket itself on a frame over `maxPayload` (1009); the
 * protocol says 4400 for an invalid message. (It does not check UTF-8 here:
 * the core does, see `skipUTF8Validation` below.)
 */
class RelaySocket extends WebSocket {
  override close(code?: number, data?: string | Buffer): void {
    if (code === 1009) super.close(CLOSE.INVALID, 'message too large');
    else super.close(code, data);
  }
}

function formatUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export async function startNodeBridge(options: NodeBridgeOptions = {}): Promise<NodeBridge> {
  const core = createRelayCore({
    ...(options.policy === undefined ? { env: options.env ?? {} } : { policy: options.policy }),
    ...(options.sharePage === undefined ? {} : { sharePage: options.sharePage }),
    ...(options.shareScript === undefined ? {} : { shareScript: options.shareScript }),
    // Forwarded frames are slices of a shared slab: no allocation of their own, and ws sends a Buffer as it is.
    allocate: slabAllocator(),
  });
  const sockets = new Map<string, WebSocket>();
  /** The TCP socket under each WebSocket, to batch writes and to let connections go. */
  const transports = new Map<string, Socket>();
  // Writes are batched per tick: a socket written to is corked until the
  // current I/O callback (which may forward dozens of frames read in one
  // chunk) has finished, so they leave in one writev instead of one each.
  const corked = new Set<Duplex>();
  let flushScheduled = false;
  const flush = (): void => {
    flushScheduled = false;
    for (const transport of corked) transport.uncork();
    corked.clear();
  };
  const cork = (id: string): void => {
    const transport = transports.get(id);
    if (transport === undefined || corked.has(transport)) return;
    transport.cork();
    corked.add(transport);
    if (!flushScheduled) {
      flushScheduled = true;
      process.nextTick(flush);
    }
  };
  const timers = new Map<string, NodeJS.Timeout>();
  const awaitingPong = new Set<WebSocket>();
  let nextId = 0;

  const clearTimer = (id: string): void => {
    const timer = timers.get(id);
    if (timer !== undefined) {
      clearTimeout(timer);
      timers.delete(id);
    }
  };

  // The rarer actions, out of `apply`, which runs for every relayed frame.
  const closeSocket = (id: string, code: number, reason: string): void => {
    clearTimer(id);
    const ws = sockets.get(id);
    if (ws !== undefined && ws.readyState === WebSocket.OPEN) ws.close(code, reason);
    closing(id);
  };
  /** The Authority's challenge is over (passed; or closed, and then it is closing already). */
  const challengeOver = (id: string): void => {
    clearTimer(id);
    const transport = transports.get(id);
    if (transport !== undefined) table.settled(transport);
  };

  const apply = (actions: readonly Action[]): void => {
    for (const action of actions) {
      switch (action.type) {
        case 'send': {
          const ws = sockets.get(action.socket);
          if (ws !== undefined && ws.readyState === WebSocket.OPEN) {
            cork(action.socket);
            // A frame forwarded as the UTF-8 bytes it came in is still a text frame.
            if (typeof action.text === 'string') ws.send(action.text);
            else ws.send(action.text, TEXT_FRAME);
          }
          break;
        }
        case 'close':
          closeSocket(action.socket, action.code, action.reason);
          break;
        case 'set_timer': {
          clearTimer(action.socket);
          const id = action.socket;
          timers.set(
            id,
            setTimeout(() => {
              timers.delete(id);
              run(id, () => core.timer(id));
            }, action.delayMs),
          );
          break;
        }
        case 'clear_timer':
          challengeOver(action.socket);
          break;
      }
    }
  };

  /** Runs one core event; a fault in it closes that socket (1011) instead of the process. */
  const run = (id: string, event: () => Outcome): void => {
    let outcome: Outcome;
    try {
      outcome = event();
    } catch (error) {
      fault(id, error);
      return;
    }
    if (Array.isArray(outcome)) apply(outcome);
    else outcome.then(apply, (error: unknown) => fault(id, error));
  };

  const fault = (id: string, error: unknown): void => {
    process.emitWarning(`relay: internal error on socket ${id}: ${error instanceof Error ? error.message : String(error)}`);
    const ws = sockets.get(id);
    if (ws !== undefined && ws.readyState === WebSocket.OPEN) ws.close(1011, 'internal error');
    closing(id);
    try {
      apply(core.closed(id));
    } catch {
      // already reported
    }
  };

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: core.policy.maxMessageBytes,
    perMessageDeflate: false,
    clientTracking: false,
    // The core checks text frames itself (canonical relay frames are ASCII;
    // anything else is decoded strictly, invalid UTF-8 being 4400).
    skipUTF8Validation: true,
    WebSocket: RelaySocket,
  });

  const policy = core.policy;
  const descriptors = measureDescriptors();
  const table = new ConnectionTable({
    // One more descriptor is the listening socket, not open yet.
    capacity: options.connectionCapacity ?? Math.max(1, descriptors.connections - 1),
    maxHandshakes: policy.maxHandshakes,
    handshakeTimeoutMs: policy.handshakeTimeoutMs,
    hooks: { shed: (id) => run(id, () => core.shed(id)) },
  });
  /** The bridge closed this socket: its connection waits for the peer (or is the first to go under pressure). */
  const closing = (id: string): void => {
    const transport = transports.get(id);
    if (transport !== undefined) table.closing(transport);
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    table.requested(socket);
    let response: HttpResponse;
    if (table.isOver(socket)) response = OVER_CAPACITY;
    else {
      try {
        response = core.http({ method: req.method ?? 'GET', url: req.url ?? '/', origin: header(req.headers.origin) });
      } catch {
        response = { status: 500, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"error":"internal"}' };
      }
    }
    res.once('finish', () => table.responded(socket));
    res.writeHead(response.status, response.headers);
    res.end(response.body);
  });
  server.on('connection', (socket: Socket) => table.accepted(socket));

  server.on('upgrade', (req: IncomingMessage, duplex: Duplex, head: Buffer) => {
    const socket = duplex as Socket;
    socket.on('error', () => socket.destroy());
    if (table.isOver(socket)) {
      refuseOverCapacity(wss, req, socket, head);
      table.closing(socket);
      return;
    }
    const request = { method: req.method ?? 'GET', url: req.url ?? '/', origin: header(req.headers.origin) };
    let decision: ReturnType<RelayCore['upgrade']>;
    try {
      decision = core.upgrade(request);
    } catch {
      socket.destroy();
      return;
    }
    if (!decision.accept) {
      rejectUpgrade(socket, decision.response);
      table.closing(socket);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const id = String(++nextId);
      sockets.set(id, ws);
      transports.set(id, socket);
      ws.on('error', () => {});
      ws.on('pong', () => awaitingPong.delete(ws));
      ws.on('message', (data: RawData, isBinary: boolean) => {
        // The hot path: no closure per frame, and a text frame's bytes go to
        // the core undecoded (it forwards canonical relay frames as bytes).
        let outcome: Outcome;
        try {
          outcome = isBinary ? core.message(id, data as Buffer) : core.textMessage(id, data as Buffer);
        } catch (error) {
          fault(id, error);
          return;
        }
        if (Array.isArray(outcome)) apply(outcome);
        else outcome.then(apply, (error: unknown) => fault(id, error));
      });
      ws.on('close', () => {
        table.closed(socket);
        sockets.delete(id);
        transports.delete(id);
        awaitingPong.delete(ws);
        clearTimer(id);
        run(id, () => core.closed(id));
      });
      table.upgraded(socket, decision.role === 'authority' ? id : undefined);
      run(id, () => core.open(id, decision.role, decision.authorityId));
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  const heartbeat = setInterval(() => {
    for (const ws of sockets.values()) {
      if (awaitingPong.has(ws)) {
        ws.terminate();
        continue;
      }
      if (ws.readyState !== WebSocket.OPEN) continue;
      awaitingPong.add(ws);
      ws.ping();
    }
  }, options.heartbeatMs ?? HEARTBEAT_MS);
  heartbeat.unref();

  const host = options.host ?? DEFAULT_HOST;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    clearInterval(heartbeat);
    throw error;
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : (options.port ?? DEFAULT_PORT);

  let stopping: Promise<void> | undefined;
  return {
    url: formatUrl(host, port),
    host,
    port,
    core,
    stats: () => core.stats(),
    connections: () => table.stats(),
    descriptors,
    close() {
      stopping ??= (async () => {
        clearInterval(heartbeat);
        table.stop();
        for (const timer of timers.values()) clearTimeout(timer);
        timers.clear();
        const open = [...sockets.values()];
        await Promise.all(
          open.map(
            (ws) =>
              new Promise<void>((resolve) => {
                if (ws.readyState === WebSocket.CLOSED) return resolve();
                const force = setTimeout(() => ws.terminate(), 1000);
                ws.once('close', () => {
                  clearTimeout(force);
                  resolve();
                });
                ws.close(1001, 'bridge shutting down');
              }),
          ),
        );
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return stopping;
    },
  };
}
