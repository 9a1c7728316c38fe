const data = Buffer.from(crypto.getRandomValues(new Uint8Array(1024))).toString('base64url');
const buf = Buffer.from(JSON.stringify({ type: 'relay', data }));
const DECODE = new Int16Array(128).fill(-1);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].entries()) DECODE[c.charCodeAt(0)] = i;
const re = /[A-Za-z0-9_-]*/y;
function loop(s: string, a: number, b: number) { for (let i = a; i < b; i++) { const c = s.charCodeAt(i); if (c >= 128 || DECODE[c]! < 0) return false; } return true; }
function sticky(s: string, a: number, b: number) { re.lastIndex = a; re.test(s); return re.lastIndex >= b; }
function loopOr(s: string, a: number, b: number) { let bad = 0; for (let i = a; i < b; i++) { const c = s.charCodeAt(i); bad |= c >= 128 ? 1 : DECODE[c]! >>> 31; } return bad === 0; }
const N = 300000; let sink: unknown;
for (const [name, fn] of [['toString', (s: string) => s.length], ['loop', (s: string) => loop(s, 24, s.length - 2)], ['sticky', (s: string) => sticky(s, 24, s.length - 2)], ['loopOr', (s: string) => loopOr(s, 24, s.length - 2)]] as [string, (s: string) => unknown][]) {
  for (let i = 0; i < 20000; i++) sink = fn(buf.toString('utf8'));
  const t = performance.now();
  for (let i = 0; i < N; i++) sink = fn(buf.toString('utf8'));
  console.log(name, (((performance.now() - t) * 1000) / N).toFixed(3), 'us');
}
void sink;
