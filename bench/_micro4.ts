import '../scripts/ts-resolve.mjs';
const m = await import('../relay/core/messages.js');
const data = Buffer.from(crypto.getRandomValues(new Uint8Array(1024))).toString('base64url');
const frame = JSON.stringify({ type: 'relay', data });
const buf = Buffer.from(frame);
const N = 500000;
let sink: unknown;
for (const [name, fn] of [
  ['decode(fresh)', () => m.decodeConsumerMessage(buf.toString('utf8'), 65536)],
  ['decode(same)', () => m.decodeConsumerMessage(frame, 65536)],
  ['text', () => m.relayToAuthorityText('AAAAAAAAAAAAAAAAAAAAAA', data, false)],
  ['text+flatten', () => Buffer.byteLength(m.relayToAuthorityText('AAAAAAAAAAAAAAAAAAAAAA', data, false))],
] as [string, () => unknown][]) {
  for (let i = 0; i < 20000; i++) sink = fn();
  const t = performance.now();
  for (let i = 0; i < N; i++) sink = fn();
  console.log(name, (((performance.now() - t) * 1000) / N).toFixed(3), 'us');
}
void sink;
