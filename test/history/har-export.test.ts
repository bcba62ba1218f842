/**
 * GET …/requests?format=har|ndjson: a HAR 1.2 document valid against the specification's schema, the
 * list's filters, HISTORY_EXPORT_MAX and `limit`, NDJSON lines, and a stream that reads the store a page
 * at a time as the client takes it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { EXPORT_PAGE, historyExport } from '../../src/api/history-export.js';
import type { HistoryEntry, Page } from '../../src/store/index.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { api, entry, newEndpoint } from '../helpers/history-fixtures.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const schema = JSON.parse(
  readFileSync(new URL('../fixtures/har/har-1.2.schema.json', import.meta.url), 'utf8'),
) as object;
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(schema);
/** Whether `doc` is HAR 1.2 (its problems in `validHar.errors`); a plain boolean, not a type guard. */
const validHar = Object.assign((doc: unknown): boolean => validate(doc), {
  get errors() {
    return validate.errors;
  },
});

let app: TestApp;
before(async () => {
  app = await startApp({ historyExportMax: 5 });
});
after(async () => {
  await app.stop();
});

/** Three exchanges: a GET with a query and a cookie, a POST answered by a rule, a path-form request. */
async function threeRequests(): Promise<string> {
  const ep = await newEndpoint(app, 'har');
  const rule = await app.inject({
    method: 'POST',
    url: `/api/v2/endpoints/${ep}/rules`,
    headers: { authorization: `Bearer mb_test_admin_key_0123456789abcdefghijklmnopqrstuv` },
    payload: {
      method: 'POST',
      conditions: [{ type: 'path', operator: 'equals', value: '/orders' }],
      action: {
        type: 'mock',
        status: 201,
        headers: [
          { key: 'content-type', value: 'application/json' },
          { key: 'set-cookie', value: 'sid=abc; Path=/' },
          { key: 'location', value: '/orders/9' },
        ],
        body: '{"id":9,"note":"café"}',
      },
    },
  });
  assert.equal(rule.statusCode, 201, rule.body);
  const host = `${ep}.${app.ctx.config.baseDomain}`;
  await app.inject({ method: 'GET', url: '/items?page=2&q=a%20b', headers: { host, cookie: 'a=1; b=2' } });
  await app.inject({
    method: 'POST',
    url: '/orders',
    headers: { host, 'content-type': 'application/json' },
    payload: '{"item":1}',
  });
  await app.inject({ method: 'GET', url: `/e/${ep}/path-form`, headers: { host: 'localhost:8080' } });
  await app.ctx.history.flush();
  return ep;
}

void describe('format=har', () => {
  void test('is HAR 1.2 (the schema), newest first, with URLs, queries, bodies, cookies and timings', async () => {
    const ep = await threeRequests();
    const res = await api(app, 'GET', `/endpoints/${ep}/requests?format=har`);
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.match(String(res.headers['content-disposition']), new RegExp(`${ep}-requests\\.har`));
    const har = res.body;
    const valid = validHar(har);
    assert.ok(valid, JSON.stringify(validHar.errors, null, 1));
    assert.equal(har.log.version, '1.2');
    assert.equal(har.log.creator.name, 'Mockingbird');
    assert.equal(har.log.comment, undefined);
    const [pathForm, post, get] = har.log.entries;
    const host = `${ep}.${app.ctx.config.baseDomain}`;
    assert.equal(pathForm.request.url, `http://localhost:8080/e/${ep}/path-form`);
    assert.equal(get.request.url, `http://${host}/items?page=2&q=a%20b`);
    assert.deepEqual(get.request.queryString, [
      { name: 'page', value: '2' },
      { name: 'q', value: 'a b' },
    ]);
    // Cookie values are kept redacted by the history (SPEC §12), and so exported.
    assert.deepEqual(get.request.cookies, [
      { name: 'a', value: '[REDACTED]' },
      { name: 'b', value: '[REDACTED]' },
    ]);
    assert.equal(get.request.postData, undefined);
    assert.equal(get.request.httpVersion, 'HTTP/1.1');
    assert.equal(post.request.method, 'POST');
    assert.deepEqual(post.request.postData, { mimeType: 'application/json', text: '{"item":1}' });
    assert.equal(post.request.bodySize, 10);
    assert.equal(post.response.status, 201);
    assert.equal(post.response.statusText, 'Created');
    assert.equal(post.response.content.text, '{"id":9,"note":"café"}');
    assert.equal(post.response.content.size, Buffer.byteLength('{"id":9,"note":"café"}'));
    assert.equal(post.response.content.mimeType, 'application/json');
    assert.equal(post.response.redirectURL, '/orders/9');
    assert.deepEqual(
      post.response.cookies.map((c: { name: string }) => c.name),
      ['sid'],
    );
    assert.ok(post.response.headers.some((h: { name: string }) => h.name === 'set-cookie'));
    assert.equal(post.time, post.timings.wait);
    assert.equal(post._mockingbird.behavior, 'mock-rule');
    assert.equal(post._mockingbird.rule.matched, true);
    assert.deepEqual(post.cache, {});
  });

  void test("takes the list's filters", async () => {
    const ep = await threeRequests();
    const res = await api(app, 'GET', `/endpoints/${ep}/requests?format=har&method=POST`);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.log.entries.map((e: { request: { method: string } }) => e.request.method),
      ['POST'],
    );
    const none = await api(app, 'GET', `/endpoints/${ep}/requests?format=har&status=599`);
    assert.deepEqual(none.body.log.entries, []);
    assert.ok(validHar(none.body));
  });

  void test('a body the history holds cut says so and has bodySize -1', async () => {
    const ep = await newEndpoint(app, 'har');
    await app.ctx.store.insertHistory([
      entry(ep, {
        responseBody: 'start of',
        responseBodyTruncated: true,
        requestBody: 'x',
        requestBodyTruncated: true,
      }),
    ]);
    const res = await api(app, 'GET', `/endpoints/${ep}/requests?format=har`);
    const [e] = res.body.log.entries;
    assert.ok(validHar(res.body), JSON.stringify(validHar.errors));
    assert.equal(e.response.bodySize, -1);
    assert.match(e.response.content.comment, /CAPTURE_LIMIT/);
    assert.equal(e.request.bodySize, -1);
    assert.match(e.request.postData.comment, /CAPTURE_LIMIT/);
  });
});

void describe('bounds: HISTORY_EXPORT_MAX (5 here) and limit', () => {
  async function withEntries(n: number): Promise<string> {
    const ep = await newEndpoint(app, 'har');
    const t = Date.now();
    await app.ctx.store.insertHistory(
      Array.from({ length: n }, (_, i) => entry(ep, { createdAt: t - i, path: `/n/${i}` })),
    );
    return ep;
  }
  const paths = (har: { log: { entries: { request: { url: string } }[] } }) =>
    har.log.entries.map((e) => new URL(e.request.url).pathname.replace(/^\/e\/[^/]+/, ''));

  void test('an export of more entries than the maximum stops there and says where to continue', async () => {
    const ep = await withEntries(7);
    const res = await api(app, 'GET', `/endpoints/${ep}/requests?format=har`);
    assert.deepEqual(paths(res.body), ['/n/0', '/n/1', '/n/2', '/n/3', '/n/4']);
    const cursor = /cursor=(\S+)$/.exec(res.body.log.comment)?.[1];
    assert.ok(cursor, res.body.log.comment);
    const rest = await api(
      app,
      'GET',
      `/endpoints/${ep}/requests?format=har&cursor=${encodeURIComponent(cursor)}`,
    );
    assert.deepEqual(paths(rest.body), ['/n/5', '/n/6']);
    assert.equal(rest.body.log.comment, undefined);
  });

  void test('limit: max − 1 and max are taken, max + 1 is a 400', async () => {
    const ep = await withEntries(7);
    const four = await api(app, 'GET', `/endpoints/${ep}/requests?format=har&limit=4`);
    assert.equal(four.body.log.entries.length, 4);
    const five = await api(app, 'GET', `/endpoints/${ep}/requests?format=ndjson&limit=5`);
    assert.equal(five.status, 200);
    assert.equal(String(five.body).trim().split('\n').length, 5);
    const six = await api(app, 'GET', `/endpoints/${ep}/requests?format=har&limit=6`);
    assert.equal(six.status, 400);
    assert.equal(six.body.error.details[0].path, '/limit');
    assert.match(six.body.error.message, /HISTORY_EXPORT_MAX/);
  });

  void test('the JSON list keeps its own page bound: limit 100 is a page, 101 a 400', async () => {
    const ep = await withEntries(1);
    assert.equal((await api(app, 'GET', `/endpoints/${ep}/requests?limit=100`)).status, 200);
    const r = await api(app, 'GET', `/endpoints/${ep}/requests?limit=101`);
    assert.equal(r.status, 400);
    assert.equal(r.body.error.details[0].path, '/limit');
  });

  void test('mode=summary beside an export and an unknown format are refused', async () => {
    const ep = await withEntries(1);
    const summary = await api(app, 'GET', `/endpoints/${ep}/requests?format=har&mode=summary`);
    assert.equal(summary.status, 400);
    assert.equal(summary.body.error.details[0].path, '/mode');
    assert.equal((await api(app, 'GET', `/endpoints/${ep}/requests?format=har&mode=verbose`)).status, 200);
    assert.equal((await api(app, 'GET', `/endpoints/${ep}/requests?format=csv`)).status, 400);
    const withId = await api(app, 'GET', `/endpoints/${ep}/requests?format=har&id=x`);
    assert.equal(withId.status, 400);
  });
});

void describe('format=ndjson', () => {
  void test('one verbose entry a line, application/x-ndjson, newest first', async () => {
    const ep = await threeRequests();
    const res = await api(app, 'GET', `/endpoints/${ep}/requests?format=ndjson`);
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/x-ndjson/);
    const text = String(res.body);
    assert.ok(text.endsWith('\n'));
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, { body: unknown } | string>);
    assert.equal(lines.length, 3);
    assert.equal(lines[0]!['path'], '/path-form');
    assert.equal((lines[1]!['request'] as { body: unknown }).body, '{"item":1}');
    assert.equal((lines[1]!['response'] as { body: unknown }).body, '{"id":9,"note":"café"}');
    assert.equal((lines[2]!['request'] as { body: unknown }).body, null);
  });
});

void describe('streaming', () => {
  /** A store of `n` entries of `bodyBytes` each that counts its page reads. */
  function countingStore(n: number, bodyBytes: number) {
    const all = Array.from(
      { length: n },
      (_, i) =>
        entry('big', { id: `e${i}`, createdAt: 1_000_000 - i, responseBody: 'x'.repeat(bodyBytes) }).entry,
    );
    const reads: number[] = [];
    return {
      reads,
      async listHistory(
        _ep: string,
        _f: unknown,
        limit: number,
        cursor?: string,
      ): Promise<Page<HistoryEntry>> {
        const from = cursor === undefined ? 0 : Number(cursor);
        reads.push(limit);
        const data = all.slice(from, from + limit);
        const next = from + data.length;
        return { data, hasMore: next < all.length, cursor: next < all.length ? String(next) : null };
      },
    };
  }
  const request = (limit: number) => ({
    endpoint: 'big',
    filter: {},
    limit,
    format: 'ndjson' as const,
    origin: { scheme: 'http', endpoint: 'big', endpointHosts: new Set<string>(), fallbackHost: 'big.test' },
    creator: { name: 'Mockingbird', version: '0' },
  });

  void test('reads the first page before answering and the next ones only as the client takes them', async () => {
    const store = countingStore(35, 64 * 1024);
    const body: Readable = await historyExport(store, request(1000));
    assert.deepEqual(store.reads, [EXPORT_PAGE]);
    // One chunk taken: still within the first page.
    const it = body[Symbol.asyncIterator]();
    await it.next();
    await new Promise((r) => setImmediate(r));
    assert.equal(store.reads.length, 1);
    let lines = 1;
    for (let r = await it.next(); !r.done; r = await it.next()) lines++;
    assert.equal(lines, 35);
    assert.deepEqual(store.reads, [10, 10, 10, 10]);
  });

  void test('asks the store for no more than the limit leaves', async () => {
    const store = countingStore(35, 10);
    const body = await historyExport(store, request(13));
    const text = (await body.toArray()).join('');
    assert.equal(text.trimEnd().split('\n').length, 13);
    assert.deepEqual(store.reads, [10, 3]);
  });
});
