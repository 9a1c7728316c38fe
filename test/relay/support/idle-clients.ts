/**
 * A child process that holds idle connections to a relay bridge, as an
 * attacker (or a crowd of broken clients) would, for node-descriptors.test.ts:
 *
 *   node --import ./scripts/ts-resolve.mjs test/relay/support/idle-clients.ts <url> <kind>=<count>...
 *
 * Kinds: `silent` (TCP, sends nothing), `partial` (an HTTP request head that
 * never ends), `challenged` (a WebSocket to /authority/<random ID> that reads
 * its challenge and never answers). Run with an IPC channel: once every
 * connection has settled (connected, challenged, or closed; opened in batches) it sends a
 * {@link IdleReport}, and again on each `report` message; `exit` closes
 * everything and exits. A separate process, so that its descriptors and its
 * event loop are not the test's.
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { WebSocket } from 'ws';

export interface IdleReport {
  /** Connections attempted. */
  readonly attempted: number;
  /** Established at some point (TCP connected; for `challenged`, the challenge read). */
  readonly established: number;
  /** Still open. */
  readonly open: number;
  /** Ended by the bridge with an answer, by HTTP status or WebSocket close code. */
  readonly answered: Readonly<Record<string, number>>;
  /** Ended without any answer (reset or refused): what an exhausted descriptor table does. */
  readonly unanswered: number;
}

type Kind = 'silent' | 'partial' | 'challenged';

const [url, ...specs] = process.argv.slice(2);
if (url === undefined || process.send === undefined) throw new Error('usage: idle-clients.ts <url> <kind>=<count>... (with an IPC channel)');
const target = new URL(url);

let attempted = 0;
let established = 0;
let open = 0;
let unanswered = 0;
const answered: Record<string, number> = Object.create(null) as Record<string, number>;
const closers: (() => void)[] = [];

function report(): IdleReport {
  return { attempted, established, open, answered: { ...answered }, unanswered };
}

/**
 * One connection's bookkeeping: `settle` once it is idle or ended (the report
 * goes when all have), `ended` once with the bridge's answer, if any.
 */
function tracker(done: () => void): { established(): void; ended(answer: string | undefined): void } {
  let settledOnce = false;
  let wasEstablished = false;
  let endedOnce = false;
  const settle = (): void => {
    if (settledOnce) return;
    settledOnce = true;
    done();
  };
  return {
    established() {
      if (wasEstablished) return;
      wasEstablished = true;
      established++;
      open++;
      settle();
    },
    ended(answer) {
      if (endedOnce) return;
      endedOnce = true;
      if (wasEstablished) open--;
      if (answer === undefined) unanswered++;
      else answered[answer] = (answered[answer] ?? 0) + 1;
      settle();
    },
  };
}

function raw(kind: 'silent' | 'partial', done: () => void): void {
  const track = tracker(done);
  const socket: Socket = connect(Number(target.port), target.hostname);
  let received = '';
  socket.setEncoding('latin1');
  socket.on('connect', () => {
    if (kind === 'partial') socket.write(`GET /health HTTP/1.1\r\nhost: ${target.host}\r\nx-slow: `);
    track.established();
  });
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => {});
  socket.on('close', () => track.ended(/^HTTP\/1\.1 (\d{3}) /.exec(received)?.[1]));
  closers.push(() => socket.destroy());
}

function challenged(done: () => void): void {
  const track = tracker(done);
  const id = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
  const ws = new WebSocket(`ws://${target.host}/authority/${id}`);
  ws.once('message', () => track.established());
  ws.on('unexpected-response', (request, response) => {
    track.ended(String(response.statusCode));
    request.destroy();
  });
  ws.on('error', () => {});
  // 1006: the connection ended without a close frame.
  ws.on('close', (code) => track.ended(code === 1006 ? undefined : String(code)));
  closers.push(() => ws.terminate());
}

const plan: [Kind, number][] = specs.map((spec) => {
  const [kind, n] = spec.split('=');
  if ((kind !== 'silent' && kind !== 'partial' && kind !== 'challenged') || !/^\d+$/.test(n ?? '')) throw new Error(`bad spec ${spec}`);
  return [kind, Number(n)];
});
attempted = plan.reduce((sum, [, n]) => sum + n, 0);
/**
 * Resolves once the bridge has answered a request sent behind everything
 * opened so far: it has accepted them all (the listen queue is first in,
 * first out). A TCP connect completes in the kernel before the bridge accepts
 * it, so without this pacing the batches would overrun the listen queue (511
 * in Node), whose overflow the kernel drops and the client retries a second
 * or more later.
 */
function caughtUp(): Promise<void> {
  return new Promise((resolve) => {
    const probe = request(new URL('/health', target), { agent: false }, (response) => {
      response.resume();
      response.on('end', resolve);
    });
    probe.on('error', () => resolve());
    probe.end();
  });
}

const BATCH = 200;
const queue = plan.flatMap(([kind, n]) => Array.from({ length: n }, () => kind));
for (let start = 0; start < queue.length; start += BATCH) {
  await Promise.all(queue.slice(start, start + BATCH).map((kind) => new Promise<void>((done) => (kind === 'challenged' ? challenged(done) : raw(kind, done)))));
  await caughtUp();
}
process.send(report());

process.on('message', (message) => {
  if (message === 'report') process.send!(report());
  else if (message === 'exit') {
    for (const close of closers) close();
    process.disconnect();
  }
});
