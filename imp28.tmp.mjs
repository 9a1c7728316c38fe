const pre = process.argv[2] === 'pre';
if (pre) { await import('@earendil-works/pi-coding-agent'); await import('@earendil-works/pi-tui'); await import('typebox'); }
const t0 = performance.now(); const m0 = process.memoryUsage().rss;
for (const e of process.argv.slice(3)) { const t = performance.now(); await import(process.cwd() + '/' + e); console.log(e, Math.round(performance.now() - t)); }
console.log('total', Math.round(performance.now() - t0), 'ms', Math.round((process.memoryUsage().rss - m0) / 1e6), 'MB');
