import '../scripts/ts-resolve.mjs';
const { createRelayCore, isBase64url, decodeConsumerMessage } = await import('../relay/core/index.js');
const core = createRelayCore({ env: { RATE_LIMIT_PER_SECOND: '1000000000', RATE_LIMIT_BURST: '1000000000' }, verify: async () => true });
const id = Buffer.alloc(32, 1).toString('base64url');
core.open('a', 'authority', id);
await core.message('a', JSON.stringify({ type: 'auth', signature: Buffer.alloc(64).toString('base64url') }));
core.open('c', 'consumer', id);
const data = Buffer.from(crypto.getRandomValues(new Uint8Array(1024))).toString('base64url');
const frame = JSON.stringify({ type: 'relay', data });
const buf = Buffer.from(frame);
const N = 200000;
for (const [name, fn] of [
  ['toString', () => buf.toString('utf8')],
  ['JSON.parse', () => JSON.parse(frame)],
  ['isBase64url', () => isBase64url(data)],
  ['regex', () => /^[A-Za-z0-9_-]*$/.test(data)],
  ['decode', () => decodeConsumerMessage(frame, 65536)],
  ['Date.now', () => Date.now()],
  ['core.message', () => core.message('c', frame)],
  ['Buffer.from(out)', () => Buffer.from(`{"type":"relay","session":"AAAAAAAAAAAAAAAAAAAAAA","data":"${data}"}`)],
] as [string, () => unknown][]) {
  for (let i = 0; i < 20000; i++) fn();
  const t = performance.now();
  for (let i = 0; i < N; i++) fn();
  console.log(name, (((performance.now() - t) * 1000) / N).toFixed(3), 'us');
}
