/**
 * The writer behind `wfcli`'s stdout and stderr (cli/process-io.ts): it
 * writes the descriptor itself, so no command pays for Node's stream modules;
 * when the descriptor is non-blocking and full (EAGAIN) it hands the rest,
 * and every later write, to the stream, in order; a closed pipe or descriptor
 * drops output quietly; any other error is reported once and fails the
 * command. The descriptor is a recording double here; the built CLI's own
 * descriptors are exercised in test/e2e/wfcli-edges.test.ts (a closed stdout).
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { descriptorWriter, drained, type FallbackStream } from '../../cli/process-io.js';

function errno(code: string): Error {
  return Object.assign(new Error(`${code}: failed, write`), { code });
}

interface Double {
  readonly written: Buffer[];
  readonly streamed: Buffer[];
  readonly reports: string[];
  failures: number;
  streams: number;
  emitError?: (error: Error) => void;
}

/** A descriptor that takes `capacity` bytes at most `chunk` at a time, then answers `full` (EAGAIN, EPIPE ...). */
function writerOver(capacity: number, options: { readonly chunk?: number; readonly full?: string } = {}): { write: (text: string) => void; double: Double } {
  const double: Double = { written: [], streamed: [], reports: [], failures: 0, streams: 0 };
  let taken = 0;
  const stream: FallbackStream = {
    destroyed: false,
    write: (data) => double.streamed.push(Buffer.from(data)),
    on: (_event, listener) => void (double.emitError = listener),
  };
  const write = descriptorWriter(1, {
    write: (_fd, data, offset, length) => {
      if (taken >= capacity) throw errno(options.full ?? 'EAGAIN');
      const count = Math.min(length, options.chunk ?? length, capacity - taken);
      double.written.push(Buffer.from(data.subarray(offset, offset + count)));
      taken += count;
      return count;
    },
    stream: () => {
      double.streams += 1;
      return stream;
    },
    report: (text) => void double.reports.push(text),
    fail: () => void (double.failures += 1),
  });
  return { write, double };
}

describe('descriptorWriter', () => {
  it('writes every byte to the descriptor, short writes continued, and makes no stream', () => {
    const { write, double } = writerOver(Infinity, { chunk: 3 });
    write('héllo, ');
    write('wörld\n');
    expect(Buffer.concat(double.written).toString('utf8')).toBe('héllo, wörld\n');
    expect(double.streams).toBe(0);
    expect([double.reports, double.failures]).toEqual([[], 0]);
  });

  it('on EAGAIN hands the rest of that write, cut mid-character, and every later write to the stream, in order', () => {
    const { write, double } = writerOver(5, { chunk: 2 });
    write('ab€cd');
    write('ef');
    // "ab" and the first byte of "€" went to the descriptor; the stream gets the other two bytes of it first.
    expect(Buffer.concat(double.written)).toEqual(Buffer.from('ab€cd', 'utf8').subarray(0, 5));
    expect(Buffer.concat([...double.written, ...double.streamed]).toString('utf8')).toBe('ab€cdef');
    expect(double.streamed.map((chunk) => chunk.toString('utf8'))).toEqual(['cd', 'ef']);
    expect(double.streams).toBe(1);
    expect([double.reports, double.failures]).toEqual([[], 0]);
  });

  it.each(['EPIPE', 'EBADF'])('a closed pipe or descriptor (%s) drops this and every later write, quietly', (code) => {
    const { write, double } = writerOver(4, { full: code });
    write('abcdefgh');
    write('more');
    expect(Buffer.concat(double.written).toString('utf8')).toBe('abcd');
    expect([double.streamed, double.streams, double.reports, double.failures]).toEqual([[], 0, [], 0]);
  });

  it('any other error is reported once and fails the command; later writes are dropped', () => {
    const { write, double } = writerOver(0, { full: 'ENOSPC' });
    write('abc');
    write('def');
    expect(double.reports).toEqual(['INTERNAL_ERROR: cannot write output: ENOSPC: failed, write\n']);
    expect(double.failures).toBe(1);
    expect(double.written).toEqual([]);
  });

  it("the stream's own errors count the same: a closed pipe is quiet, anything else reported once", () => {
    for (const [code, reports] of [['EPIPE', 0], ['EIO', 1]] as const) {
      const { write, double } = writerOver(0);
      write('abc');
      double.emitError?.(errno(code));
      double.emitError?.(errno(code));
      write('def');
      expect([double.reports.length, double.failures], code).toEqual([reports, reports]);
      expect(double.streamed.map(String), code).toEqual(['abc']);
    }
  });
});

describe('drained', () => {
  /** A stream whose writes stay queued until `finish` completes them. */
  function slowStream(): { stream: Writable; finish: () => void } {
    const pending: (() => void)[] = [];
    const stream = new Writable({ highWaterMark: 4, write: (_chunk, _encoding, done) => void pending.push(done) });
    return { stream, finish: () => pending.splice(0).forEach((done) => done()) };
  }

  it('resolves at once when nothing is queued', async () => {
    const { stream } = slowStream();
    await expect(drained([stream])).resolves.toBeUndefined();
  });

  it('waits for queued output to drain, then resolves', async () => {
    const { stream, finish } = slowStream();
    stream.write('more than the high-water mark');
    let settled = false;
    const waiting = drained([stream]).then(() => (settled = true));
    // Every microtask has run by the next turn of the event loop: an early resolve would show.
    await new Promise((resolve) => setImmediate(resolve));
    expect([settled, stream.writableLength > 0]).toEqual([false, true]);
    finish();
    await waiting;
    expect([settled, stream.writableLength]).toEqual([true, 0]);
  });

  it('does not wait for a stream that is destroyed with output queued', async () => {
    const { stream } = slowStream();
    stream.on('error', () => undefined);
    stream.write('queued');
    stream.destroy();
    await expect(drained([stream])).resolves.toBeUndefined();
  });
});
