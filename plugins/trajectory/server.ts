/**
 * The viewer's HTTP server: 127.0.0.1 on a random port, every URL under a
 * per-session secret token (`/<token>/...`). A request without the token, to
 * another Host (DNS rebinding) or from another origin (an `Origin` or
 * `Sec-Fetch-Site` that is not this server) is refused with 403 before
 * anything is read. Pages carry a strict CSP with no inline script or style:
 * the page's own script and stylesheet are served as files. Live updates are
 * Server-Sent Events of the whole run model, pushed when the run's files
 * change (polled) or a kernel event names the run.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { CALLS_FILE, EVENTS_FILE, messageOf } from '../../kernel/index.js';
import { pageHtml, TRAJECTORY_CSS, trajectoryAppScript } from './page.js';

export const TRAJECTORY_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const HEADERS = {
  'content-security-policy': TRAJECTORY_CSP,
  'x-content-type-options': 'nosniff',
  // The token is in every URL: no page may send it on as a referrer.
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
} as const;

/** How often the files of a watched run are checked for changes. */
export const POLL_MS = 500;
const HEARTBEAT_MS = 15_000;

/** What the server reads: this session's runs and their models. */
export interface RunSource {
  list(): readonly { readonly runId: string; readonly workflow: string; readonly state: string; readonly createdAt: string; readonly launchMode: string }[];
  /** The run's model as JSON text, or undefined for a run of another session or none. */
  model(runId: string): string | undefined;
  runDir(runId: string): string | undefined;
}

interface Watch {
  readonly clients: Set<ServerResponse>;
  signature: string;
  timer: NodeJS.Timeout;
  pending: NodeJS.Timeout | undefined;
}

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Sizes and times of the files a run's model is built from. */
function fileSignature(runDir: string): string {
  return ['snapshot.json', CALLS_FILE, EVENTS_FILE, 'result.json']
    .map((file) => {
      try {
        // lstat: a planted link or FIFO changes nothing here, and is refused when the model reads it.
        const stat = lstatSync(join(runDir, file));
        return `${stat.size}:${stat.mtimeMs}`;
      } catch {
        return '-';
      }
    })
    .join('|');
}

export class TrajectoryServer {
  readonly #server: Server;
  readonly #token = randomBytes(24).toString('base64url');
  readonly #source: RunSource;
  readonly #watches = new Map<string, Watch>();
  #port = 0;

  private constructor(source: RunSource) {
    this.#source = source;
    this.#server = createServer((request, response) => this.#handle(request, response));
  }

  static async start(source: RunSource): Promise<TrajectoryServer> {
    const server = new TrajectoryServer(source);
    await new Promise<void>((resolve, reject) => {
      server.#server.once('error', reject);
      server.#server.listen(0, '127.0.0.1', () => resolve());
    });
    server.#port = (server.#server.address() as AddressInfo).port;
    return server;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /** The session's run list, or one run's page. */
  url(runId?: string): string {
    return `${this.origin}/${this.#token}/${runId === undefined ? '' : `runs/${runId}`}`;
  }

  /** A kernel event named this run: push its model soon if anyone watches it. */
  notify(runId: string): void {
    const watch = this.#watches.get(runId);
    if (!watch || watch.pending) return;
    watch.pending = setTimeout(() => {
      watch.pending = undefined;
      this.#check(runId, true);
    }, 30);
  }

  async close(): Promise<void> {
    for (const [runId, watch] of this.#watches) {
      for (const client of watch.clients) client.end();
      this.#unwatch(runId);
    }
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #refuse(response: ServerResponse, status: number, text: string): void {
    response.writeHead(status, { ...HEADERS, 'content-type': 'text/plain; charset=utf-8' }).end(text);
  }

  /** Token, Host and origin checks; true when the request may be served. */
  #allowed(request: IncomingMessage, response: ServerResponse, token: string): boolean {
    const host = `127.0.0.1:${this.#port}`;
    const origin = request.headers.origin;
    const site = request.headers['sec-fetch-site'];
    if (!sameToken(token, this.#token)) this.#refuse(response, 403, 'forbidden: this viewer needs the URL /workflow trajectory printed');
    else if (request.headers.host !== host) this.#refuse(response, 403, 'forbidden: wrong host');
    else if (origin !== undefined && origin !== this.origin) this.#refuse(response, 403, 'forbidden: another origin');
    else if (site !== undefined && site !== 'same-origin' && site !== 'none') this.#refuse(response, 403, 'forbidden: another site');
    else if (request.method !== 'GET' && request.method !== 'HEAD') this.#refuse(response, 405, 'method not allowed');
    else return true;
    return false;
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    try {
      const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
      const [, token = '', ...rest] = path.split('/');
      if (!this.#allowed(request, response, token)) return;
      this.#route(rest, response, `/${this.#token}/`);
    } catch (error) {
      if (!response.headersSent) this.#refuse(response, 500, `internal error: ${messageOf(error)}`);
    }
  }

  #send(response: ServerResponse, type: string, body: string): void {
    response.writeHead(200, { ...HEADERS, 'content-type': `${type}; charset=utf-8` }).end(body);
  }

  #route(parts: readonly string[], response: ServerResponse, base: string): void {
    const [first = '', second, third, fourth] = parts;
    if (first === '' && parts.length <= 1) return this.#send(response, 'text/html', pageHtml(base, 'runs'));
    if (first === 'app.js' && parts.length === 1) return this.#send(response, 'text/javascript', trajectoryAppScript());
    if (first === 'app.css' && parts.length === 1) return this.#send(response, 'text/css', TRAJECTORY_CSS);
    if (first === 'runs' && second !== undefined && RUN_ID.test(second) && parts.length === 2) return this.#send(response, 'text/html', pageHtml(base, 'run'));
    if (first === 'api' && second === 'runs' && third === undefined) return this.#send(response, 'application/json', JSON.stringify(this.#source.list()));
    if (first === 'api' && second === 'runs' && third !== undefined && RUN_ID.test(third)) {
      const model = this.#source.model(third);
      if (model === undefined) return this.#refuse(response, 404, 'no such run in this session');
      if (fourth === undefined) return this.#send(response, 'application/json', model);
      if (fourth === 'stream' && parts.length === 4) return this.#stream(third, model, response);
    }
    this.#refuse(response, 404, 'not found');
  }

  #stream(runId: string, model: string, response: ServerResponse): void {
    response.writeHead(200, { ...HEADERS, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
    response.write(`retry: 1000\n\ndata: ${model}\n\n`);
    let watch = this.#watches.get(runId);
    if (!watch) {
      const runDir = this.#source.runDir(runId);
      watch = { clients: new Set(), pending: undefined, signature: runDir === undefined ? '' : fileSignature(runDir), timer: setInterval(() => this.#check(runId, false), POLL_MS) };
      watch.timer.unref();
      this.#watches.set(runId, watch);
    }
    watch.clients.add(response);
    const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    response.on('close', () => {
      clearInterval(heartbeat);
      const current = this.#watches.get(runId);
      current?.clients.delete(response);
      if (current?.clients.size === 0) this.#unwatch(runId);
    });
  }

  #unwatch(runId: string): void {
    const watch = this.#watches.get(runId);
    if (!watch) return;
    clearInterval(watch.timer);
    if (watch.pending) clearTimeout(watch.pending);
    this.#watches.delete(runId);
  }

  /** Pushes the model when the run's files changed (or always after an event, whose state may already be on disk). */
  #check(runId: string, force: boolean): void {
    const watch = this.#watches.get(runId);
    const runDir = this.#source.runDir(runId);
    if (!watch || runDir === undefined) return;
    const signature = fileSignature(runDir);
    if (!force && signature === watch.signature) return;
    watch.signature = signature;
    const model = this.#source.model(runId);
    if (model === undefined) return;
    for (const client of watch.clients) client.write(`data: ${model}\n\n`);
  }
}
