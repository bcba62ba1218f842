/**
 * The dribble (`chunked: { chunks, totalDuration }`, issue 37) on a raw socket: the head at once,
 * then exactly `chunks` HTTP chunks spread over `totalDuration` (generous bounds: a loaded machine),
 * the body whole once joined; fewer bytes than chunks is a byte a chunk; HEAD and 204 are written
 * whole; a client that leaves harms no other; MAX_DRIBBLE_CHUNKS at its limits.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertError, call, createEndpoint } from '../helpers/api-helpers.js';
import { MAX_DRIBBLE_CHUNKS } from '../../src/mock/index.js';

let app: TestApp;
const EP = 'dribble';
const BODY = 'abcdefghijklmnopqrst'; // 20 bytes

async function rule(path: string, action: Record<string, unknown>) {
  return call(app, 'POST', `/endpoints/${EP}/rules`, {
    conditions: [{ type: 'path', operator: 'equals', value: path }],
    action: { type: 'mock', ...action },
  });
}

before(async () => {
  app = await startApp({}, { listen: true });
  await createEndpoint(app, EP);
  for (const [path, action] of [
    ['/slow', { body: BODY, chunked: { chunks: 4, totalDuration: 800 } }],
    ['/tiny', { body: 'ab', chunked: { chunks: 5, totalDuration: 100 } }],
    ['/none', { status: 204, chunked: { chunks: 3, totalDuration: 3000 } }],
  ] as const) {
    const r = await rule(path, action);
    assert.equal(r.status, 201, r.text);
  }
});
after(async () => {
  await app.stop();
});

interface Chunk {
  at: number;
  data: string;
}

/** Sends `method path` and parses the chunked answer as it arrives: the head's time and each chunk's. */
function chunks(method: string, path: string) {
  return new Promise<{ head: string; headAt: number; chunks: Chunk[]; raw: string }>((resolve, reject) => {
    const s = net.connect(app.port, '127.0.0.1');
    const started = performance.now();
    let raw = '';
    let headAt = -1;
    let head = '';
    let rest = '';
    const got: Chunk[] = [];
    s.setEncoding('latin1');
    s.on('data', (d: string) => {
      raw += d;
      const now = performance.now() - started;
      if (headAt < 0) {
        const end = raw.indexOf('\r\n\r\n');
        if (end < 0) return;
        headAt = now;
        head = raw.slice(0, end);
        rest = raw.slice(end + 4);
      } else rest += d;
      // Each complete chunk: size line, data, CRLF.
      for (;;) {
        const line = rest.indexOf('\r\n');
        if (line < 0) break;
        const size = parseInt(rest.slice(0, line), 16);
        if (rest.length < line + 2 + size + 2) break;
        if (size === 0) {
          s.end();
          return resolve({ head, headAt, chunks: got, raw });
        }
        got.push({ at: now, data: rest.slice(line + 2, line + 2 + size) });
        rest = rest.slice(line + 2 + size + 2);
      }
      // A bodiless answer ends with its head.
      if (/^HTTP\/1\.1 204|content-length: 0/i.test(head) || method === 'HEAD') {
        s.end();
        resolve({ head, headAt, chunks: got, raw });
      }
    });
    s.on('error', reject);
    s.write(`${method} /e/${EP}${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
  });
}

void test('the head at once, then `chunks` chunks spread over totalDuration, the body whole', async () => {
  const r = await chunks('GET', '/slow');
  assert.match(r.head, /^HTTP\/1\.1 200/);
  assert.match(r.head, /transfer-encoding: chunked/i);
  assert.doesNotMatch(r.head, /content-length/i);
  assert.equal(r.chunks.length, 4);
  assert.deepEqual(
    r.chunks.map((c) => c.data),
    ['abcde', 'fghij', 'klmno', 'pqrst'],
  );
  // The head comes before the first piece (at 200 ms); the pieces are 200 ms apart, the last at 800.
  assert.ok(r.headAt < r.chunks[0]!.at, `head ${r.headAt}, first ${r.chunks[0]!.at}`);
  const last = r.chunks.at(-1)!.at - r.headAt;
  assert.ok(last >= 750 && last < 3000, `last chunk ${last} ms after the head`);
  for (let i = 1; i < r.chunks.length; i++) {
    const gap = r.chunks[i]!.at - r.chunks[i - 1]!.at;
    assert.ok(gap >= 120, `gap ${i}: ${gap} ms`);
  }
  await app.ctx.history.flush();
  const e = (await app.ctx.store.listHistory(EP, {}, 1)).data[0]!;
  assert.equal(e.responseBody, BODY);
});

void test('a body shorter than the chunks is sent a byte a chunk (an empty chunk would end it)', async () => {
  const r = await chunks('GET', '/tiny');
  assert.deepEqual(
    r.chunks.map((c) => c.data),
    ['a', 'b'],
  );
});

void test('HEAD and 204 are written whole, at once', async () => {
  const head = await chunks('HEAD', '/slow');
  assert.match(head.head, /^HTTP\/1\.1 200/);
  assert.match(head.head, /content-length: 20/i);
  assert.equal(head.chunks.length, 0);
  const none = await chunks('GET', '/none');
  assert.match(none.head, /^HTTP\/1\.1 204/);
  assert.ok(none.headAt < 2000, `204 after ${none.headAt} ms`);
});

void test('a client that leaves mid-dribble: the server goes on serving others', async () => {
  const s = net.connect(app.port, '127.0.0.1');
  s.on('error', () => {});
  const first = new Promise<void>((resolve) => s.once('data', () => resolve()));
  s.write(`GET /e/${EP}/slow HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
  await first;
  s.destroy();
  // Its timer is cleared on close (dribble.ts); the server answers the next client as usual.
  const r = await fetch(`${app.url}/e/${EP}/tiny`);
  assert.equal(await r.text(), 'ab');
});

void test(`chunks: 1 to MAX_DRIBBLE_CHUNKS (${MAX_DRIBBLE_CHUNKS}); totalDuration up to 600000`, async () => {
  assertError(await rule('/c0', { chunked: { chunks: 0, totalDuration: 10 } }), 400, 'validation_error');
  assert.equal((await rule('/c1', { chunked: { chunks: 1, totalDuration: 10 } })).status, 201);
  const limit = (n: number) => rule('/cn', { chunked: { chunks: n, totalDuration: 10 } });
  assert.equal((await limit(MAX_DRIBBLE_CHUNKS - 1)).status, 201);
  assert.equal((await limit(MAX_DRIBBLE_CHUNKS)).status, 201);
  assertError(await limit(MAX_DRIBBLE_CHUNKS + 1), 400, 'validation_error');
  assert.equal((await rule('/d', { chunked: { chunks: 2, totalDuration: 600_000 } })).status, 201);
  assertError(await rule('/d', { chunked: { chunks: 2, totalDuration: 600_001 } }), 400, 'validation_error');
  assertError(await rule('/d', { chunked: { chunks: 2 } }), 400, 'validation_error');
});
