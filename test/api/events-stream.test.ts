/** The SSE writer on its own (src/api/sse.ts): framing, heartbeat, close, and the slow-reader bound. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { openSse, type SseOptions, type SseStream } from '../../src/api/sse.js';

/** A plain server whose one route opens a stream with `opts`; resolves the stream when a client connects. */
async function serve(
  opts: SseOptions,
): Promise<{ port: number; stream: Promise<SseStream>; stop(): Promise<void> }> {
  let give!: (s: SseStream) => void;
  const stream = new Promise<SseStream>((r) => (give = r));
  const server = http.createServer((_req, res) => give(openSse(res, opts)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    stream,
    stop: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

void test('events are framed as event/data blocks; heartbeats are comments', async () => {
  const s = await serve({ heartbeatMs: 30, retryMs: 1234 });
  let text = '';
  const req = http.get(`http://127.0.0.1:${s.port}/`, (res) => {
    res.setEncoding('utf8');
    res.on('data', (c: string) => (text += c));
  });
  try {
    const stream = await s.stream;
    assert.equal(stream.send('rule.created', { id: 'a', n: 1 }), true);
    const end = Date.now() + 2000;
    while (!text.includes(': heartbeat\n\n') && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    assert.match(text, /retry: 1234\n\n/);
    assert.match(text, /event: rule\.created\ndata: \{"id":"a","n":1\}\n\n/);
    assert.match(text, /: heartbeat\n\n/);
  } finally {
    req.destroy();
    await s.stop();
  }
});

void test('close() ends the response, runs onClose once, and later sends are refused', async () => {
  const s = await serve({});
  let closes = 0;
  const ended = new Promise<void>((resolve) => {
    http.get(`http://127.0.0.1:${s.port}/`, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
  });
  const stream = await s.stream;
  stream.onClose(() => closes++);
  stream.close();
  stream.close();
  await ended;
  assert.equal(stream.closed, true);
  assert.equal(stream.send('rule.deleted', {}), false);
  assert.equal(closes, 1);
  await s.stop();
});

void test('a client that stops reading is cut off once too much is buffered', async () => {
  const s = await serve({ maxBuffered: 64 * 1024 });
  // A raw socket that sends the request and then never reads.
  const sock = net.connect(s.port, '127.0.0.1');
  sock.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  sock.pause();
  try {
    const stream = await s.stream;
    const big = 'x'.repeat(64 * 1024);
    let sent = 0;
    while (stream.send('request.created', { big }) && sent < 2000) sent++;
    assert.equal(stream.closed, true, `still open after ${sent} events`);
    assert.ok(sent < 2000);
  } finally {
    sock.destroy();
    await s.stop();
  }
});
