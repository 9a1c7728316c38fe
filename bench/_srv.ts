import '../scripts/ts-resolve.mjs';
const { startNodeBridge } = await import('../relay/node/server.js');
const b = await startNodeBridge({ port: 18999, env: { RATE_LIMIT_PER_SECOND: '1000000000', RATE_LIMIT_BURST: '1000000000' } });
console.log(b.url);
process.on('SIGINT', () => void b.close().then(() => process.exit(0)));
