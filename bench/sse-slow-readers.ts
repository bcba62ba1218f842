/**
 * Event streams that never read (issue 11, item 5). A child process opens STREAMS raw connections to
 * one endpoint's event stream with one key, reads each response head and then stops reading. The
 * server, in this process, publishes EVENTS events of EVENT_KB KiB each. Printed: how the streams were
 * answered, the server's RSS (after a GC) before, with the streams open and after the flood, the bytes
 * still queued for readers, the connections the server still holds, and the latency of a request to
 * the endpoint while the streams are open (its request.created goes to every stream).
 *
 *   node --expose-gc --import tsx bench/sse-slow-readers.ts
 *   STREAMS=500 EVENTS=512 EVENT_KB=16, and any setting: SSE_MAX_STREAMS_PER_KEY=100000 …
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/server.js';

const STREAMS = Number(process.env['STREAMS'] ?? 500);
const EVENTS = Number(process.env['EVENTS'] ?? 512);
const EVENT_KB = Number(process.env['EVENT_KB'] ?? 16);
const KEY = 'mb_bench_key_not_secret_0123456789abcdef';

/** The readers: every connection reports its answer's status once, then is never read again. */
const READERS = `
const net = require('node:net');
const [port, n, key] = process.argv.slice(1);
for (let i = 0; i < Number(n); i++) {
  const s = net.connect(Number(port), '127.0.0.1');
  s.write('GET /api/v2/endpoints/bench/events HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: ' + key + '\\r\\n\\r\\n');
  s.once('data', (c) => { console.log('status ' + c.toString().split(' ')[1]); s.pause(); });
  s.on('error', () => {});
}
setInterval(() => {}, 1000); // paused sockets alone do not keep a process alive
`;

const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(0)} MiB`;
/** RSS, and what JavaScript holds (heap and buffers): freed memory shows there at once, in RSS later. */
function memory(): string {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return `${mib(m.rss)} (JS ${mib(m.heapUsed + m.external)})`;
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const dataDir = mkdtempSync(join(tmpdir(), 'mb-bench-sse-'));
const config = {
  ...loadConfig({}, process.env),
  dataDir,
  apiKey: KEY,
  logLevel: 'silent',
  databaseUrl: undefined,
  redisUrl: undefined,
  // Every reader here shares one address: the per-address cap is not what is measured.
  maxConnectionsPerIp: STREAMS + 100,
};
const app = await buildApp(config);
await app.fastify.listen({ port: 0, host: '127.0.0.1' });
const port = (app.fastify.server.address() as { port: number }).port;
const sockets = new Set<Socket>();
app.fastify.server.on('connection', (s: Socket) => {
  sockets.add(s);
  s.on('close', () => sockets.delete(s));
});
await app.fastify.inject({
  method: 'POST',
  url: '/api/v2/endpoints',
  headers: { authorization: KEY },
  payload: { name: 'bench' },
});

const before = memory();
const statuses = new Map<string, number>();
let answered = 0;
const child = spawn(process.execPath, ['-e', READERS, String(port), String(STREAMS), KEY]);
child.stdout.setEncoding('utf8');
let partial = '';
child.stdout.on('data', (c: string) => {
  const lines = (partial + c).split('\n');
  partial = lines.pop()!;
  for (const l of lines) {
    const status = l.replace(/^status /, '');
    answered++;
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
});
for (const end = Date.now() + 30_000; answered < STREAMS && Date.now() < end;) await sleep(20);

const times: number[] = [];
for (let i = 0; i < 21; i++) {
  const t = performance.now();
  const r = await fetch(`http://127.0.0.1:${port}/e/bench/x`, { method: 'POST', body: 'hi' });
  await r.arrayBuffer();
  times.push(performance.now() - t);
  await sleep(60); // past the history writer's batch, so that each request's event goes out alone
}
times.sort((a, b) => a - b);
const open = memory();

const pad = 'x'.repeat(EVENT_KB * 1024);
for (let i = 0; i < EVENTS; i++) {
  app.ctx.events.publish({ endpoint: 'bench', name: 'rule.updated', data: { i, pad } });
  if (i % 8 === 0) await new Promise((r) => setImmediate(r));
}
await sleep(1000);
const flooded = memory();
let queued = 0;
for (const s of sockets) queued += s.writableLength;

console.log(
  `${STREAMS} streams (${[...statuses].map(([s, n]) => `${n} × ${s}`).join(', ')}), ` +
    `${EVENTS} events × ${EVENT_KB} KiB; SSE_MAX_STREAMS=${config.sseMaxStreams} ` +
    `SSE_MAX_STREAMS_PER_KEY=${config.sseMaxStreamsPerKey} SSE_MAX_BUFFERED=${config.sseMaxBuffered}`,
);
console.log(`RSS: start ${before}, streams open ${open}, after the flood ${flooded}`);
console.log(`after the flood: ${mib(queued)} queued for readers, ${sockets.size} connections open`);
console.log(
  `a request to the endpoint with the streams open: median ${times[10]!.toFixed(1)} ms, max ${times[20]!.toFixed(1)} ms`,
);
child.kill('SIGKILL');
await app.close();
rmSync(dataDir, { recursive: true, force: true });
