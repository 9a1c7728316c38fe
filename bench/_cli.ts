import '../scripts/ts-resolve.mjs';
const { WebSocket } = await import('ws');
const url = 'ws://127.0.0.1:18999';
const keys = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
const id = Buffer.from(new Uint8Array(await crypto.subtle.exportKey('raw', keys.publicKey))).toString('base64url');
const a = new WebSocket(`${url}/authority/${id}`);
let received = 0; let resolveDone: () => void = () => {};
let ready = false;
await new Promise<void>((res) => a.on('message', async (d) => {
  if (ready) { if (++received % 20000 === 0) resolveDone(); return; }
  const m = JSON.parse(String(d));
  if (m.type === 'challenge') a.send(JSON.stringify({ type: 'auth', signature: Buffer.from(await crypto.subtle.sign({ name: 'Ed25519' }, keys.privateKey, new TextEncoder().encode(`pi-relay-auth:1:${id}:${m.nonce}`))).toString('base64url') }));
  else if (m.type === 'ready') { ready = true; res(); }
  else if (m.type === 'relay') { if (++received % 20000 === 0) resolveDone(); }
}));
const c = new WebSocket(`${url}/consumer/${id}`);
await new Promise((r) => c.once('message', r)); received = 0; await new Promise((r) => setTimeout(r, 100)); received = 0;
const frame = JSON.stringify({ type: 'relay', data: Buffer.from(crypto.getRandomValues(new Uint8Array(1024))).toString('base64url') });
for (let round = 0; round < 10; round++) {
  const done = new Promise<void>((r) => (resolveDone = r));
  const t = performance.now();
  for (let i = 0; i < 20000; i++) c.send(frame);
  await done;
  console.log(Math.round(20000 / ((performance.now() - t) / 1000)));
}
process.exit(0);
