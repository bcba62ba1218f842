/**
 * Stops: CRUD list reads, which need no key, building and holding unbounded answers (issue 30, item 1).
 * A collection filled to its 64 MiB cap gave ~67 MB of JSON per `GET …?limit=100`; 48 clients that never
 * read held 4.4 GB (the echo waited 15.9 s) and 96 killed the process. Now a page stops at
 * CRUD_LIST_MAX_BYTES (a `Link: rel="next"` continues it), the bytes of list answers being written are
 * bounded per instance (CRUD_LIST_BUFFERED_BYTES) and per client address
 * (CRUD_LIST_BUFFERED_BYTES_PER_IP), past which a read is 429, and an answer not taken within
 * REQUEST_TIMEOUT has its connection reset. Readers from 127.0.0.1 that never read leave a client on
 * 127.0.0.2 served, CRUD list included.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { Config } from '../../src/config.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { until } from '../helpers/until.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';

const KIB = 1024;
const MIB = 1024 * KIB;

/** An endpoint `ep` with a crud collection at /items holding `count` items of `size` bytes of JSON each. */
async function filled(app: TestApp, ep: string, count: number, size: number): Promise<string[]> {
  await createEndpoint(app, ep);
  const rule = {
    conditions: [{ type: 'path', operator: 'starts_with', value: '/items' }],
    action: { type: 'crud' },
  };
  assert.equal((await call(app, 'POST', `/endpoints/${ep}/rules`, rule)).status, 201);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `item-${String(i).padStart(4, '0')}`;
    const shell = JSON.stringify({ id, pad: '' });
    const item = { id, pad: 'x'.repeat(size - shell.length) };
    assert.equal(JSON.stringify(item).length, size);
    const r = await app.inject({ method: 'POST', url: `/e/${ep}/items`, payload: item });
    assert.equal(r.statusCode, 201, r.body);
    ids.push(id);
  }
  return ids.reverse(); // the list is newest first
}

async function withApp(overrides: Partial<Config>, fn: (app: TestApp) => Promise<void>): Promise<void> {
  const app = await startApp(overrides, { listen: true });
  try {
    await fn(app);
  } finally {
    await app.stop();
  }
}

void test('CRUD_LIST_MAX_BYTES: a page stops before the item that would pass it; Link rel=next continues to the end', async () => {
  const size = 20 * KIB;
  await withApp({ crudListMaxBytes: 64 * KIB, crudMaxItemBytes: MIB }, async (app) => {
    const ids = await filled(app, 'crud-pages', 10, size);
    const seen: string[] = [];
    let url = '/e/crud-pages/items?limit=100';
    for (let pages = 0; ; pages++) {
      assert.ok(pages < 10, 'the pages end');
      const r = await app.inject({ url });
      assert.equal(r.statusCode, 200);
      assert.ok(r.rawPayload.length <= 64 * KIB, `a page of ${r.rawPayload.length} bytes`);
      assert.equal(r.headers['x-total-count'], '10');
      const items = r.json<{ id: string }[]>();
      seen.push(...items.map((i) => i.id));
      const link = r.headers['link'] as string | undefined;
      if (link === undefined) break;
      // 3 items of 20 KiB fit 64 KiB, a 4th would not.
      assert.equal(items.length, 3);
      const next = /^<(\?[^>]+)>; rel="next"$/.exec(link);
      assert.ok(next, link);
      url = `/e/crud-pages/items${next[1]}`;
    }
    assert.deepEqual(seen, ids, 'every item once, newest first');
  });
});

void test('CRUD_LIST_MAX_BYTES: a page of exactly the bound holds both items; one byte less holds one (limit − 1, limit, limit + 1)', async () => {
  await withApp({}, async (app) => {
    const size = 5000;
    await filled(app, 'crud-exact', 2, size);
    const exact = 2 + size + 1 + size; // [a,b]
    const page = (maxBytes: number) => app.ctx.store.listCrudPage('crud-exact', '/items', 100, 0, maxBytes);
    const below = await page(exact - 1);
    assert.equal(below.texts.length, 1, 'limit − 1: the second item would pass the bound');
    assert.equal(below.bytes, 2 + size);
    const at = await page(exact);
    assert.equal(at.texts.length, 2, 'limit: both fit exactly');
    assert.equal(at.bytes, exact);
    assert.equal((await page(exact + 1)).texts.length, 2, 'limit + 1');
    // An item larger than the bound is a page of its own: a list always moves on.
    const alone = await page(1024);
    assert.equal(alone.texts.length, 1);
    assert.equal(alone.total, 2);
  });
});

/** A raw GET from 127.0.0.1 that reads the status line and then never reads again. */
async function stalledRead(app: TestApp, url: string): Promise<{ status: number; sock: net.Socket }> {
  const sock = net.connect(app.port, '127.0.0.1');
  sock.on('error', () => undefined);
  sock.write(`GET ${url} HTTP/1.1\r\nHost: x\r\n\r\n`);
  const first = await new Promise<Buffer>((resolve) => sock.once('data', resolve));
  sock.pause();
  return { status: Number(first.toString('latin1').split(' ')[1]), sock };
}

/** A GET from another loopback address (not counted against 127.0.0.1's share), with its latency. */
function probe(app: TestApp, path: string): Promise<{ status: number; ms: number; body: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port: app.port, path, localAddress: '127.0.0.2', agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, body }));
      },
    );
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error(`${path} from 127.0.0.2 not answered in 5 s`)));
  });
}

void test('CRUD list readers that never read hold at most CRUD_LIST_BUFFERED_BYTES(_PER_IP); the rest get 429; 127.0.0.2 is served meanwhile', async () => {
  // Pages larger than what the kernel takes for a reader that does not read (a few MiB on loopback).
  const overrides: Partial<Config> = {
    crudListMaxBytes: 8 * MIB,
    crudListBufferedBytes: 24 * MIB,
    crudListBufferedBytesPerIp: 16 * MIB,
    crudMaxItemBytes: MIB,
    crudMaxEndpointBytes: 64 * MIB,
    maxConnectionsPerIp: 1000,
  };
  await withApp(overrides, async (app) => {
    // 32 MiB: without the byte bound, each reader's page was the whole collection (768 MiB for 24).
    await filled(app, 'crud-hoard', 32, MIB - 100);
    const rssBefore = process.memoryUsage().rss;
    const readers = [];
    for (let i = 0; i < 24; i++) readers.push(await stalledRead(app, '/e/crud-hoard/items?limit=100'));
    try {
      const statuses = readers.map((r) => r.status);
      assert.ok(
        statuses.every((s) => s === 200 || s === 429),
        `statuses: ${statuses.join(',')}`,
      );
      assert.ok(
        statuses.includes(429),
        `past the per-address share, reads are refused: ${statuses.join(',')}`,
      );
      const more = await new Promise<{ status: number; retry: unknown; body: string }>((resolve, reject) =>
        http
          .get(`${app.url}/e/crud-hoard/items`, { agent: false }, (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, retry: res.headers['retry-after'], body }),
            );
          })
          .on('error', reject),
      );
      assert.equal(more.status, 429);
      assert.equal(more.retry, '2');
      const err = (JSON.parse(more.body) as { error: { code: string; message: string } }).error;
      assert.equal(err.code, 'rate_limited');
      assert.match(err.message, /CRUD_LIST_BUFFERED_BYTES_PER_IP/);
      const stats = app.ctx.crudLists.stats();
      assert.ok(stats.held > 0, 'the unread answers hold their bytes');
      assert.ok(stats.peak <= 16 * MIB, `127.0.0.1 held at most its share (peak ${stats.peak})`);

      // Another address is served, its CRUD reads included, while the readers above hold their share.
      const echo = await probe(app, '/e/echo/probe');
      assert.equal(echo.status, 200);
      const list = await probe(app, '/e/crud-hoard/items?limit=1');
      assert.equal(list.status, 200, list.body);
      assert.equal((JSON.parse(list.body) as unknown[]).length, 1);
      assert.ok(echo.ms < 2000 && list.ms < 2000, `probes took ${echo.ms} and ${list.ms} ms`);

      const grown = process.memoryUsage().rss - rssBefore;
      assert.ok(grown < 160 * MIB, `RSS grew by ${(grown / MIB).toFixed(0)} MiB`);
    } finally {
      for (const r of readers) r.sock.destroy();
    }
    await until(() => app.ctx.crudLists.stats().held === 0, 3000, 'closed readers gave their bytes back');
  });
});

void test('a CRUD list answer not taken within REQUEST_TIMEOUT has its connection reset and its bytes given back', async () => {
  const overrides: Partial<Config> = {
    requestTimeout: 1000,
    crudListMaxBytes: 4 * MIB,
    crudMaxItemBytes: MIB,
    crudMaxEndpointBytes: 64 * MIB,
  };
  await withApp(overrides, async (app) => {
    await filled(app, 'crud-slow', 16, MIB - 100);
    const reader = await stalledRead(app, '/e/crud-slow/items?limit=100');
    assert.equal(reader.status, 200);
    const closed = new Promise<void>((r) => reader.sock.once('close', () => r()));
    assert.ok(app.ctx.crudLists.stats().held > 0, 'the unread answer holds its bytes');
    await until(() => app.ctx.crudLists.stats().held === 0, 3000, 'the deadline gave the bytes back');
    reader.sock.resume(); // the reset is seen once the socket reads again
    await closed;
  });
});
