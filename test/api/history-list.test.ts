/** GET /api/v2/endpoints/:ep/requests and …/requests/:id: shapes, pages, modes, auth, errors. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createKey } from '../../src/api/index.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { allIds, api, entry, newEndpoint } from '../helpers/history-fixtures.js';

let app: TestApp;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app.stop();
});

void describe('list', () => {
  void test('a request sent to the endpoint is listed with the summary fields, newest first', async () => {
    const ep = await newEndpoint(app);
    const first = await app.inject({ method: 'GET', url: `/e/${ep}/first` });
    assert.equal(first.statusCode, 200);
    const second = await app.inject({
      method: 'POST',
      url: `/e/${ep}/things?x=1`,
      headers: { 'content-type': 'application/json', 'x-trace': 'abc' },
      payload: '{"a":1}',
    });
    assert.equal(second.statusCode, 200);
    await app.ctx.history.flush();

    const res = await api(app, 'GET', `/endpoints/${ep}/requests`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.pagination, { hasMore: false, limit: 20 });
    assert.equal(res.body.data.length, 2);
    const [newest, oldest] = res.body.data;
    assert.equal(oldest.path, '/first');
    assert.equal(newest.method, 'POST');
    assert.equal(newest.path, '/things?x=1');
    assert.equal(newest.status, 200);
    assert.equal(newest.behavior, 'default');
    assert.deepEqual(newest.rule, { matched: false });
    assert.match(newest.date, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(newest.createdAt, newest.date);
    assert.equal(typeof newest.ip, 'string');
    assert.equal(typeof newest.durationMs, 'number');
    assert.ok(Number.isInteger(newest.timeTaken), String(newest.timeTaken));
    assert.equal(newest.timeTaken, Math.round(newest.durationMs));
    assert.equal(newest.isMultipart, false);
    assert.deepEqual(newest.files, []);
    assert.equal(newest.requestBodyTruncated, false);
    assert.equal(newest.responseBodyTruncated, false);
    // Summary mode: no headers or bodies.
    assert.equal(newest.request, undefined);
    assert.equal(newest.response, undefined);
  });

  void test('mode=verbose adds request and response headers and bodies', async () => {
    const ep = await newEndpoint(app);
    await app.ctx.store.insertHistory([
      entry(ep, {
        requestHeaders: { 'x-a': '1' },
        requestBody: 'in',
        responseHeaders: { 'x-b': '2' },
        responseBody: 'out',
        requestBodyTruncated: true,
      }),
    ]);
    const res = await api(app, 'GET', `/endpoints/${ep}/requests?mode=verbose`);
    assert.equal(res.status, 200);
    const [e] = res.body.data;
    assert.deepEqual(e.request, { headers: { 'x-a': '1' }, body: 'in', httpVersion: '1.1' });
    assert.deepEqual(e.response, { headers: { 'x-b': '2' }, body: 'out', httpVersion: '1.1' });
    assert.equal(e.requestBodyTruncated, true);
    const summary = await api(app, 'GET', `/endpoints/${ep}/requests?mode=summary`);
    assert.equal(summary.body.data[0].request, undefined);
  });

  void test('45 entries in pages of 20: 20 + 20 + 5, no duplicates, no gaps, newest first', async () => {
    const ep = await newEndpoint(app);
    const base = Date.now() - 100_000;
    // Three entries share each instant, so that the id breaks ties across page boundaries.
    const entries = Array.from({ length: 45 }, (_, i) =>
      entry(ep, { createdAt: base + Math.floor(i / 3) * 1000 }),
    );
    await app.ctx.store.insertHistory(entries);
    const expected = entries
      .map((e) => e.entry)
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
      .map((e) => e.id);

    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    const more: boolean[] = [];
    do {
      const url: string = `/endpoints/${ep}/requests${cursor ? `?cursor=${cursor}` : ''}`;
      const res = await api(app, 'GET', url);
      assert.equal(res.status, 200);
      sizes.push(res.body.data.length);
      more.push(res.body.pagination.hasMore);
      assert.equal(res.body.pagination.limit, 20);
      seen.push(...res.body.data.map((e: { id: string }) => e.id));
      cursor = res.body.pagination.cursor;
    } while (cursor);
    assert.deepEqual(sizes, [20, 20, 5]);
    assert.deepEqual(more, [true, true, false]);
    assert.equal(new Set(seen).size, 45);
    assert.deepEqual(seen, expected);
  });

  void test('limit 1 and 100 are accepted; filters apply across pages', async () => {
    const ep = await newEndpoint(app);
    const base = Date.now() - 100_000;
    await app.ctx.store.insertHistory(
      Array.from({ length: 30 }, (_, i) =>
        entry(ep, { createdAt: base + i, status: i % 3 === 0 ? 500 : 200 }),
      ),
    );
    const one = await api(app, 'GET', `/endpoints/${ep}/requests?limit=1`);
    assert.equal(one.body.data.length, 1);
    assert.equal(one.body.pagination.hasMore, true);
    const hundred = await api(app, 'GET', `/endpoints/${ep}/requests?limit=100`);
    assert.equal(hundred.body.data.length, 30);
    assert.equal(hundred.body.pagination.limit, 100);
    const failing = await allIds(app, ep, 'status=500');
    assert.equal(failing.length, 10);
    const page = await api(app, 'GET', `/endpoints/${ep}/requests?status=500&limit=4`);
    assert.ok(page.body.data.every((e: { status: number }) => e.status === 500));
  });

  void test('an endpoint with no history lists nothing', async () => {
    const ep = await newEndpoint(app);
    const res = await api(app, 'GET', `/endpoints/${ep}/requests`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { data: [], pagination: { hasMore: false, limit: 20 } });
  });

  for (const [query, param] of [
    ['limit=0', '/limit'],
    ['limit=101', '/limit'],
    ['limit=abc', '/limit'],
    ['limit=2.5', '/limit'],
    ['cursor=garbage', '/cursor'],
    ['cursor=' + Buffer.from('1:x;drop').toString('base64url'), '/cursor'],
    ['mode=full', '/mode'],
    ['foo=1', '/foo'],
    ['status=abc', '/status'],
    ['ruleMatched=maybe', '/ruleMatched'],
    ['dateFrom=yesterday', '/dateFrom'],
    ['dateRange=5x', '/dateRange'],
    ['path=/[/', '/path'],
  ] as const) {
    void test(`list with ${query}: 400 validation_error at ${param}`, async () => {
      const ep = await newEndpoint(app);
      const res = await api(app, 'GET', `/endpoints/${ep}/requests?${query}`);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'validation_error');
      assert.equal(res.body.error.details[0].path, param);
    });
  }
});

void describe('one entry', () => {
  void test('GET …/requests/:id is always verbose; DELETE removes it', async () => {
    const ep = await newEndpoint(app);
    const e = entry(ep, { requestBody: 'hello', responseBody: 'world', ruleMatched: true, ruleId: 'r1' });
    await app.ctx.store.insertHistory([e]);
    const got = await api(app, 'GET', `/endpoints/${ep}/requests/${e.entry.id}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.id, e.entry.id);
    assert.equal(got.body.request.body, 'hello');
    assert.equal(got.body.response.body, 'world');
    assert.deepEqual(got.body.rule, { matched: true, ruleId: 'r1' });

    const del = await api(app, 'DELETE', `/endpoints/${ep}/requests/${e.entry.id}`);
    assert.equal(del.status, 200);
    assert.deepEqual(del.body, { id: e.entry.id, deleted: true });
    assert.equal((await api(app, 'GET', `/endpoints/${ep}/requests/${e.entry.id}`)).status, 404);
    const again = await api(app, 'DELETE', `/endpoints/${ep}/requests/${e.entry.id}`);
    assert.equal(again.status, 404);
    assert.equal(again.body.error.code, 'not_found');
  });

  void test('an entry of another endpoint is not found through this one', async () => {
    const a = await newEndpoint(app);
    const b = await newEndpoint(app);
    const e = entry(a);
    await app.ctx.store.insertHistory([e]);
    assert.equal((await api(app, 'GET', `/endpoints/${b}/requests/${e.entry.id}`)).status, 404);
    assert.equal((await api(app, 'DELETE', `/endpoints/${b}/requests/${e.entry.id}`)).status, 404);
    assert.equal((await api(app, 'GET', `/endpoints/${a}/requests/${e.entry.id}`)).status, 200);
  });

  void test('unknown query parameters are refused on the single-entry routes too', async () => {
    const ep = await newEndpoint(app);
    const e = entry(ep);
    await app.ctx.store.insertHistory([e]);
    const got = await api(app, 'GET', `/endpoints/${ep}/requests/${e.entry.id}?verbose=1`);
    assert.equal(got.status, 400);
    assert.equal(got.body.error.details[0].path, '/verbose');
    const del = await api(app, 'DELETE', `/endpoints/${ep}/requests/${e.entry.id}?force=true`);
    assert.equal(del.status, 400);
    assert.equal((await api(app, 'GET', `/endpoints/${ep}/requests/${e.entry.id}`)).status, 200);
  });
});

void describe('authentication and scope', () => {
  const routes = (ep: string, id: string) =>
    [
      ['GET', `/endpoints/${ep}/requests`],
      ['DELETE', `/endpoints/${ep}/requests`],
      ['GET', `/endpoints/${ep}/requests/${id}`],
      ['DELETE', `/endpoints/${ep}/requests/${id}`],
      ['GET', `/endpoints/${ep}/requests/${id}/files/doc`],
    ] as const;

  void test('without a key: 401 missing_authentication; with an unknown key: 401 unauthorized_api_key', async () => {
    const ep = await newEndpoint(app);
    for (const [method, url] of routes(ep, 'x')) {
      const none = await api(app, method, url, {});
      assert.equal(none.status, 401, `${method} ${url}`);
      assert.equal(none.body.error.code, 'missing_authentication');
      const bad = await api(app, method, url, { authorization: 'Bearer mb_not_a_key' });
      assert.equal(bad.status, 401);
      assert.equal(bad.body.error.code, 'unauthorized_api_key');
    }
  });

  void test('a key scoped to another endpoint: 403; scoped to this one: allowed', async () => {
    const ep = await newEndpoint(app);
    const other = await newEndpoint(app);
    const e = entry(ep);
    await app.ctx.store.insertHistory([e]);
    const foreign = await createKey(app.ctx.store, other);
    for (const [method, url] of routes(ep, e.entry.id)) {
      const res = await api(app, method, url, { authorization: foreign.key });
      assert.equal(res.status, 403, `${method} ${url}`);
      assert.equal(res.body.error.code, 'forbidden');
    }
    const own = await createKey(app.ctx.store, ep);
    const res = await api(app, 'GET', `/endpoints/${ep}/requests`, { authorization: `Bearer ${own.key}` });
    assert.equal(res.status, 200);
    assert.equal(res.body.data[0].id, e.entry.id);
  });

  void test('an unknown endpoint: 404 not_found on every route', async () => {
    for (const [method, url] of routes('no-such-endpoint', 'x')) {
      const res = await api(app, method, url);
      assert.equal(res.status, 404, `${method} ${url}`);
      assert.equal(res.body.error.code, 'not_found');
    }
  });
});
