/**
 * The host end of a pane's private channel: a Unix socket server in the
 * attempt's 0700 directory. The first connection that says `hello` with the
 * attempt's token becomes the peer; any other connection, and a peer that
 * sends something invalid, is dropped. The peer going away (the pane's `pi`
 * exited or was killed) closes the channel.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { LineSplitter, PROTOCOL_VERSION, parseLine, validatePaneMessage, type HostMessage, type PaneHello, type PaneMessage } from './protocol.js';

export interface ChannelHandlers {
  /** Every message after `hello`, in order. */
  readonly onMessage: (message: Exclude<PaneMessage, PaneHello>) => void;
  /** The peer went away; `error` when it broke the protocol. */
  readonly onClose: (error?: Error) => void;
}

export class PaneChannel {
  readonly #server: Server;
  readonly #token: string;
  #peer: Socket | undefined;
  #handlers: ChannelHandlers | undefined;
  #hello: { resolve(hello: PaneHello): void; reject(error: Error): void } | undefined;
  #closed = false;

  private constructor(server: Server, token: string) {
    this.#server = server;
    this.#token = token;
    server.on('connection', (socket) => this.#accept(socket));
  }

  /** Listens on `socketPath` (inside a private directory). */
  static listen(socketPath: string, token: string): Promise<PaneChannel> {
    const server = createServer();
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve(new PaneChannel(server, token));
      });
    });
  }

  /** Resolves with the peer's `hello`; the handlers then get everything after it. */
  hello(handlers: ChannelHandlers): Promise<PaneHello> {
    this.#handlers = handlers;
    return new Promise((resolve, reject) => {
      if (this.#closed) reject(new Error('the channel is closed'));
      else this.#hello = { resolve, reject };
    });
  }

  /** False when there is no peer (any more). */
  send(message: HostMessage): boolean {
    const peer = this.#peer;
    if (peer === undefined || peer.destroyed) return false;
    peer.write(`${JSON.stringify(message)}\n`);
    return true;
  }

  get connected(): boolean {
    return this.#peer !== undefined && !this.#peer.destroyed;
  }

  /** Stops listening and drops the peer. Idempotent. */
  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#hello?.reject(new Error('the channel was closed'));
      this.#hello = undefined;
      this.#peer?.destroy();
    }
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #accept(socket: Socket): void {
    if (this.#closed || this.#peer !== undefined) {
      socket.destroy();
      return;
    }
    socket.setEncoding('utf8');
    let peer = false;
    const fail = (error: Error): void => {
      socket.destroy();
      if (peer) this.#lost(error);
    };
    const lines = new LineSplitter((line) => {
      let message: PaneMessage;
      try {
        message = parseLine(line, validatePaneMessage, "the pane's pi");
      } catch (error) {
        fail(error as Error);
        return;
      }
      if (!peer) {
        // Only a hello with this attempt's token and protocol makes a connection the peer.
        if (message.type !== 'hello' || message.token !== this.#token || message.version !== PROTOCOL_VERSION || this.#peer !== undefined) {
          socket.destroy();
          return;
        }
        peer = true;
        this.#peer = socket;
        this.#hello?.resolve(message);
        this.#hello = undefined;
        return;
      }
      if (message.type === 'hello') fail(new Error("the pane's pi said hello twice"));
      else this.#handlers?.onMessage(message);
    }, fail);
    socket.on('data', (chunk: string) => lines.push(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      if (peer) this.#lost();
    });
  }

  #lostOnce = false;
  #lost(error?: Error): void {
    if (this.#lostOnce) return;
    this.#lostOnce = true;
    this.#handlers?.onClose(error);
  }
}
