/**
 * The viewer's HTTP server, one implementation for the Pi session's viewer
 * (plugins/trajectory, this session's runs) and `wfcli view` (cli/view.ts,
 * every stored run of the project): 127.0.0.1 on a random or chosen port,
 * every URL under a secret token (`/<token>/...`). A request without the
 * token, to another Host (DNS rebinding) or from another origin (an
 * `Origin` or `Sec-Fetch-Site` that is not this server) is refused with 403
 * before anything is read. Pages carry a strict CSP with no inline script or style:
 * the page's own script and stylesheet are served as files. Live updates are
 * Server-Sent Events of the whole run model, pushed when the run's files
 * change (polled) or a kernel event names the run.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { messageOf } from '../../kernel/errors.js';
import { CALLS_FILE, EVENTS_FILE } from '../../kernel/engine/run-log.js';
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

/** One run of the list page. */
export interface RunListEntry {
  readonly runId: string;
  readonly workflow: string;
  readonly state: string;
  readonly createdAt: string;
  readonly launchMode: string;
  /** The owning session, when the list spans several (`wfcli view`): the page groups by it. */
  readonly sessionId?: string;
  /** A live process executes the run now (its run lock's owner is alive). */
  readonly executing?: boolean;
}

/** What the server reads and does: the runs it shows, their models, transcripts and controls. */
export interface RunSource {
  list(): readonly RunListEntry[];
  /** The run's model as JSON text, or undefined for a run it does not show (another session's, or none). */
  model(runId: string): string | undefined;
  runDir(runId: string): string | undefined;
  /** One attempt's transcript as JSON text; undefined when the run or the attempt's session file is unknown. */
  transcript(runId: string, agentId: string, attempt: number): string | undefined;
  /** A tag that changes when the attempt's session file changes (size and time), for polling. */
  transcriptTag(runId: string, agentId: string, attempt: number): string | undefined;
  /** Attempts whose transcript mentions `query` (case-insensitive), with how often: no text of theirs. */
  search(runId: string, query: string): readonly { readonly agentId: string; readonly attempt: number; readonly matches: number }[] | undefined;
  /** The self-contained report of the run. */
  report(runId: string, transcripts: boolean): string | undefined;
  /** Why no control of this viewer can change the run (answered 403 before the body is read); undefined when it may. */
  readOnly?(runId: string): string | undefined;
  /** Performs a control request's JSON body; resolves with a one-line answer, rejects with why not (409). */
  act(runId: string, body: string): Promise<string>;
}

/** What tells one viewer from the other in the server's answers. */
export interface ServerOptions {
  /** Which runs it shows, as refusals say it: `this session`, `this project`. */
  readonly scope: 'session' | 'project';
  /** What prints the viewer's URL, named when a request lacks the token. */
  readonly opener: string;
  /** The port to listen on; default one the system chooses. */
  readonly port?: number;
}

/** The custom header every control request carries: a cross-site form or image cannot send it, and a cross-origin fetch with it needs a preflight the server never answers. */
export const CONTROL_HEADER = 'x-workflow-viewer';
/** The largest control request body read. */
const MAX_BODY_BYTES = 4096;

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
  readonly #options: ServerOptions;
  readonly #watches = new Map<string, Watch>();
  #port = 0;

  private constructor(source: RunSource, options: ServerOptions) {
    this.#source = source;
    this.#options = options;
    this.#server = createServer((request, response) => this.#handle(request, response));
  }

  static async start(source: RunSource, options: ServerOptions): Promise<TrajectoryServer> {
    const server = new TrajectoryServer(source, options);
    await new Promise<void>((resolve, reject) => {
      server.#server.once('error', reject);
      server.#server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    server.#port = (server.#server.address() as AddressInfo).port;
    return server;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /** The run list, or one run's page. */
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

  /**
   * Token, Host and origin checks; true when the request may be served.
   * A control (POST) must also come from this origin (an `Origin` equal to
   * the viewer's, a `Sec-Fetch-Site` of `same-origin` when sent) with the
   * custom header and a JSON body.
   */
  #allowed(request: IncomingMessage, response: ServerResponse, token: string, control: boolean): boolean {
    const host = `127.0.0.1:${this.#port}`;
    const origin = request.headers.origin;
    const site = request.headers['sec-fetch-site'];
    if (!sameToken(token, this.#token)) this.#refuse(response, 403, `forbidden: this viewer needs the URL ${this.#options.opener} printed`);
    else if (request.headers.host !== host) this.#refuse(response, 403, 'forbidden: wrong host');
    else if (origin !== undefined && origin !== this.origin) this.#refuse(response, 403, 'forbidden: another origin');
    else if (site !== undefined && site !== 'same-origin' && site !== 'none') this.#refuse(response, 403, 'forbidden: another site');
    else if (control && request.method === 'POST') {
      if (origin !== this.origin || (site !== undefined && site !== 'same-origin')) this.#refuse(response, 403, 'forbidden: a control must come from the viewer page');
      else if (request.headers[CONTROL_HEADER] !== '1') this.#refuse(response, 403, `forbidden: a control needs the ${CONTROL_HEADER} header`);
      else if (!(request.headers['content-type'] ?? '').startsWith('application/json')) this.#refuse(response, 415, 'a control is a JSON body');
      else return true;
    } else if (request.method !== 'GET' && request.method !== 'HEAD') this.#refuse(response, 405, 'method not allowed');
    else return true;
    return false;
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    try {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const [, token = '', ...rest] = url.pathname.split('/');
      const control = rest.length === 4 && rest[0] === 'api' && rest[1] === 'runs' && rest[3] === 'actions';
      if (!this.#allowed(request, response, token, control)) return;
      if (control) {
        if (request.method !== 'POST') return this.#refuse(response, 405, 'method not allowed: a control is a POST');
        return this.#control(request, response, rest[2] ?? '');
      }
      this.#route(rest, url.searchParams, request, response, `/${this.#token}/`);
    } catch (error) {
      if (!response.headersSent) this.#refuse(response, 500, `internal error: ${messageOf(error)}`);
    }
  }

  /** Reads the bounded body and performs it; 200 with `{ message }`, 409 with `{ error }` when refused. */
  #control(request: IncomingMessage, response: ServerResponse, runId: string): void {
    if (!RUN_ID.test(runId) || this.#source.runDir(runId) === undefined) return this.#refuse(response, 404, this.#noSuchRun());
    const readOnly = this.#source.readOnly?.(runId);
    if (readOnly !== undefined) return void response.writeHead(403, { ...HEADERS, 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: readOnly }));
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        this.#refuse(response, 413, 'the control request is too large');
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on('end', () => {
      if (response.headersSent) return;
      this.#source.act(runId, Buffer.concat(chunks).toString('utf8')).then(
        (message) => {
          this.#send(response, 'application/json', JSON.stringify({ message }));
          this.notify(runId);
        },
        (error: unknown) => {
          if (!response.headersSent) response.writeHead(409, { ...HEADERS, 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: messageOf(error) }));
        },
      );
    });
  }

  #noSuchRun(): string {
    return `no such run in this ${this.#options.scope}`;
  }

  #send(response: ServerResponse, type: string, body: string): void {
    response.writeHead(200, { ...HEADERS, 'content-type': `${type}; charset=utf-8` }).end(body);
  }

  #route(parts: readonly string[], query: URLSearchParams, request: IncomingMessage, response: ServerResponse, base: string): void {
    const [first = '', second, third, fourth] = parts;
    if (first === '' && parts.length <= 1) return this.#send(response, 'text/html', pageHtml(base, 'runs', this.#options.scope));
    if (first === 'app.js' && parts.length === 1) return this.#send(response, 'text/javascript', trajectoryAppScript());
    if (first === 'app.css' && parts.length === 1) return this.#send(response, 'text/css', TRAJECTORY_CSS);
    if (first === 'runs' && second !== undefined && RUN_ID.test(second) && parts.length === 2) return this.#send(response, 'text/html', pageHtml(base, 'run', this.#options.scope));
    if (first === 'api' && second === 'runs' && third === undefined) return this.#send(response, 'application/json', JSON.stringify(this.#source.list()));
    if (first === 'api' && second === 'runs' && third !== undefined && RUN_ID.test(third)) {
      const model = this.#source.model(third);
      if (model === undefined) return this.#refuse(response, 404, this.#noSuchRun());
      if (fourth === undefined) return this.#send(response, 'application/json', model);
      if (fourth === 'stream' && parts.length === 4) return this.#stream(third, model, response);
      if (fourth === 'transcript' && parts.length === 4) return this.#transcript(third, query, request, response);
      if (fourth === 'search' && parts.length === 4) {
        const text = query.get('q') ?? '';
        if (text.length < 1 || text.length > 200) return this.#refuse(response, 400, 'q takes 1 to 200 characters');
        return this.#send(response, 'application/json', JSON.stringify(this.#source.search(third, text) ?? []));
      }
      if (fourth === 'report' && parts.length === 4) {
        const report = this.#source.report(third, query.get('transcripts') !== '0');
        if (report === undefined) return this.#refuse(response, 404, this.#noSuchRun());
        response.writeHead(200, { ...HEADERS, 'content-type': 'text/html; charset=utf-8', 'content-disposition': `attachment; filename="${third}.html"` }).end(report);
        return;
      }
    }
    this.#refuse(response, 404, 'not found');
  }

  /** `?agent=<id>&attempt=<n>`; answers 304 while the session file is unchanged (If-None-Match). */
  #transcript(runId: string, query: URLSearchParams, request: IncomingMessage, response: ServerResponse): void {
    const agentId = query.get('agent') ?? '';
    const attempt = Number(query.get('attempt'));
    if (agentId === '' || agentId.length > 1000 || !Number.isSafeInteger(attempt) || attempt < 1) return this.#refuse(response, 400, 'agent and attempt (a positive whole number) are needed');
    const tag = this.#source.transcriptTag(runId, agentId, attempt);
    if (tag !== undefined && request.headers['if-none-match'] === tag) {
      response.writeHead(304, { ...HEADERS, etag: tag }).end();
      return;
    }
    const view = this.#source.transcript(runId, agentId, attempt);
    if (view === undefined) return this.#refuse(response, 404, 'this attempt has no transcript');
    response.writeHead(200, { ...HEADERS, 'content-type': 'application/json; charset=utf-8', ...(tag === undefined ? {} : { etag: tag }) }).end(view);
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
