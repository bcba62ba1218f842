/** DELETE /api/v2/endpoints/:ep/requests: every seed filter alone, AND, no filter, files, errors, events. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { MockEvent } from '../../src/events/index.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { until } from '../helpers/until.js';
import { allIds, api, entry, isoAgo, newEndpoint } from '../helpers/history-fixtures.js';

let app: TestApp;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app.stop();
});

const MIN = 60_000;
const HOUR = 60 * MIN;

/** Five entries that differ in every filtered field; returns their ids by letter. */
async function seed(ep: string): Promise<Record<'A' | 'B' | 'C' | 'D' | 'E', string>> {
  const now = Date.now();
  const rows = {
    A: entry(ep, {
      createdAt: now - 3 * HOUR,
      method: 'GET',
      path: '/users/1',
      status: 200,
      behavior: 'mock-rule',
      ruleMatched: true,
      ruleId: 'r1',
      responseBody: '{"id":1}',
    }),
    B: entry(ep, {
      createdAt: now - 2 * HOUR,
      method: 'POST',
      path: '/users',
      status: 201,
      behavior: 'mock-rule',
      ruleMatched: true,
      ruleId: 'r2',
      requestBody: '{"name":"ann"}',
      responseBody: 'created',
    }),
    C: entry(ep, {
      createdAt: now - 30 * MIN,
      method: 'GET',
      path: '/orders?x=1',
      status: 404,
      behavior: 'default',
      responseBody: 'Nothing configured',
    }),
    D: entry(ep, {
      createdAt: now - 10_000,
      method: 'DELETE',
      path: '/users/2',
      status: 500,
      behavior: 'proxy',
      responseBody: 'upstream failed',
    }),
    E: entry(ep, {
      createdAt: now - 48 * HOUR,
      method: 'PUT',
      path: '/orders/7',
      status: 200,
      behavior: 'echo',
      requestBody: 'hello world',
      responseBody: '{"method":"PUT"}',
    }),
  };
  await app.ctx.store.insertHistory(Object.values(rows));
  return Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, v.entry.id])) as Record<
    'A' | 'B' | 'C' | 'D' | 'E',
    string
  >;
}

type Letter = 'A' | 'B' | 'C' | 'D' | 'E';
const CASES: [string, () => string, Letter[]][] = [
  ['dateFrom', () => `dateFrom=${isoAgo(HOUR)}`, ['C', 'D']],
  ['dateTo', () => `dateTo=${isoAgo(HOUR)}`, ['A', 'B', 'E']],
  ['dateFrom and dateTo', () => `dateFrom=${isoAgo(150 * MIN)}&dateTo=${isoAgo(HOUR)}`, ['B']],
  ['dateRange=1h', () => 'dateRange=1h', ['C', 'D']],
  ['dateRange=30s', () => 'dateRange=30s', ['D']],
  ['dateRange=7d', () => 'dateRange=7d', ['A', 'B', 'C', 'D', 'E']],
  ['method (any case)', () => 'method=post', ['B']],
  ['path substring', () => 'path=users', ['A', 'B', 'D']],
  ['path substring with query', () => 'path=' + encodeURIComponent('?x=1'), ['C']],
  ['path regex', () => 'path=' + encodeURIComponent('/^\\/orders/'), ['C', 'E']],
  ['path regex with a class', () => 'path=' + encodeURIComponent('/\\/users\\/\\d+$/'), ['A', 'D']],
  ['status', () => 'status=500', ['D']],
  ['behavior', () => 'behavior=mock-rule', ['A', 'B']],
  ['behavior the hosted service has and we do not (grpc)', () => 'behavior=grpc', []],
  ['behavior graphql', () => 'behavior=graphql', []],
  ['behavior wsdl', () => 'behavior=wsdl', []],
  ['ruleMatched=true', () => 'ruleMatched=true', ['A', 'B']],
  ['ruleMatched=false', () => 'ruleMatched=false', ['C', 'D', 'E']],
  ['requestBody', () => 'requestBody=ann', ['B']],
  ['responseBody', () => 'responseBody=upstream', ['D']],
  ['responseBody is case-sensitive', () => 'responseBody=Upstream', []],
  ['method AND status', () => 'method=GET&status=200', ['A']],
  [
    'behavior AND path AND dateFrom',
    () => `behavior=mock-rule&path=users&dateFrom=${isoAgo(150 * MIN)}`,
    ['B'],
  ],
  ['ruleMatched AND responseBody', () => 'ruleMatched=false&responseBody=%7B', ['E']],
  ['no filter: everything', () => '', ['A', 'B', 'C', 'D', 'E']],
];

void describe('filters', () => {
  for (const [name, query, expected] of CASES) {
    void test(`${name} deletes exactly ${expected.join(', ') || 'nothing'}`, async () => {
      const ep = await newEndpoint(app);
      const ids = await seed(ep);
      const q = query();
      const listed = await api(app, 'GET', `/endpoints/${ep}/requests?limit=100${q ? '&' + q : ''}`);
      assert.equal(listed.status, 200);
      // The list applies the same filters as the delete.
      assert.deepEqual(
        listed.body.data.map((e: { id: string }) => e.id).sort(),
        expected.map((l) => ids[l]).sort(),
      );

      const res = await api(app, 'DELETE', `/endpoints/${ep}/requests${q ? '?' + q : ''}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body, { deleted: true, count: expected.length });
      const left = await allIds(app, ep);
      const kept = (Object.keys(ids) as Letter[]).filter((l) => !expected.includes(l)).map((l) => ids[l]);
      assert.deepEqual(left.sort(), kept.sort());
    });
  }
});

void describe('what a delete leaves', () => {
  void test('the endpoint, its rules and its state are untouched; other endpoints keep their history', async () => {
    const ep = await newEndpoint(app);
    const other = await newEndpoint(app);
    await seed(ep);
    const otherIds = await seed(other);
    await app.ctx.store.appendRule(ep, { id: 'rule-1', data: { enabled: true } });
    await app.ctx.store.putState(ep, { type: 'counter', key: 'hits', value: 3 });

    const res = await api(app, 'DELETE', `/endpoints/${ep}/requests`);
    assert.deepEqual(res.body, { deleted: true, count: 5 });
    assert.deepEqual(await allIds(app, ep), []);
    assert.ok(await app.ctx.store.getEndpoint(ep));
    assert.deepEqual(await app.ctx.store.listRules(ep), [{ id: 'rule-1', data: { enabled: true } }]);
    assert.equal((await app.ctx.store.getState(ep, 'counter', 'hits'))?.value, 3);
    assert.equal((await allIds(app, other)).length, Object.keys(otherIds).length);
  });

  void test('requests answered just before the delete are deleted too (the batch writer is flushed)', async () => {
    const ep = await newEndpoint(app);
    for (let i = 0; i < 3; i++) await app.inject({ method: 'GET', url: `/e/${ep}/r${i}` });
    // No explicit flush: the entries may still be queued in the history writer.
    const res = await api(app, 'DELETE', `/endpoints/${ep}/requests`);
    assert.deepEqual(res.body, { deleted: true, count: 3 });
    await app.ctx.history.flush();
    assert.deepEqual(await allIds(app, ep), []);
  });

  void test('the server purges deleted entries from the database in the background', async () => {
    const ep = await newEndpoint(app);
    await seed(ep);
    const res = await api(app, 'DELETE', `/endpoints/${ep}/requests?status=500`);
    assert.equal(res.status, 200);
    assert.equal(res.body.count, 1);
    await until(
      async () => (await app.ctx.store.historyPurgeBacklog()) === 0,
      5000,
      'the purge job did not empty the backlog within 5 s',
    );
    assert.equal(await app.ctx.store.countHistory(ep, {}), 4);
  });

  void test('publishes requests.deleted with the count', async () => {
    const ep = await newEndpoint(app);
    await seed(ep);
    const seen: MockEvent[] = [];
    const stop = app.ctx.events.subscribe(ep, (e) => seen.push(e));
    try {
      await api(app, 'DELETE', `/endpoints/${ep}/requests?status=500`);
      // Each event carries its id too (for Last-Event-ID), which this test does not look at.
      const events = seen.map((e) => ({ endpoint: e.endpoint, name: e.name, data: e.data }));
      assert.deepEqual(events, [{ endpoint: ep, name: 'requests.deleted', data: { count: 1 } }]);
    } finally {
      stop();
    }
  });
});

void describe('invalid query parameters', () => {
  for (const [query, param] of [
    ['foo=1', '/foo'],
    ['Status=500', '/Status'],
    ['access_token=x', '/access_token'],
    ['dateFrom=2026-05-15', '/dateFrom'],
    ['dateFrom=2026-02-30T00:00:00Z', '/dateFrom'],
    ['dateFrom=2026-05-15T24:00:00Z', '/dateFrom'],
    ['dateTo=2026-05-15T10:00:00%2B25:00', '/dateTo'],
    ['dateTo=2026-05-15T10:00:00%2B02:60', '/dateTo'],
    ['dateTo=not-a-date', '/dateTo'],
    [`dateFrom=2026-05-16T00:00:00Z&dateTo=2026-05-15T00:00:00Z`, '/dateFrom'],
    ['dateRange=5x', '/dateRange'],
    ['dateRange=0h', '/dateRange'],
    ['dateRange=1', '/dateRange'],
    ['dateRange=1h&dateTo=2020-01-01T00:00:00Z', '/dateRange'],
    ['method=G3T', '/method'],
    ['method=', '/method'],
    ['path=' + encodeURIComponent('/(unclosed/'), '/path'],
    ['path=', '/path'],
    ['status=abc', '/status'],
    ['status=99', '/status'],
    ['status=600', '/status'],
    ['status=50.5', '/status'],
    ['status=', '/status'],
    ['status=500&status=404', '/status'],
    ['behavior=teapot', '/behavior'],
    ['ruleMatched=maybe', '/ruleMatched'],
    ['ruleMatched=1', '/ruleMatched'],
    ['requestBody=', '/requestBody'],
    ['responseBody=', '/responseBody'],
  ] as const) {
    void test(`${decodeURIComponent(query)}: 400 validation_error at ${param}, nothing deleted`, async () => {
      const ep = await newEndpoint(app);
      await seed(ep);
      const res = await api(app, 'DELETE', `/endpoints/${ep}/requests?${query}`);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'validation_error');
      assert.equal(res.body.error.details[0].path, param);
      assert.equal((await allIds(app, ep)).length, 5);
    });
  }

  void test('an overlong regular expression is refused', async () => {
    const ep = await newEndpoint(app);
    const res = await api(app, 'DELETE', `/endpoints/${ep}/requests?path=/${'a'.repeat(501)}/`);
    assert.equal(res.status, 400);
    assert.equal(res.body.error.details[0].path, '/path');
  });

  void test('the 400 names every unknown parameter', async () => {
    const ep = await newEndpoint(app);
    const res = await api(app, 'DELETE', `/endpoints/${ep}/requests?stauts=500&methd=GET`);
    assert.equal(res.status, 400);
    assert.deepEqual(
      res.body.error.details.map((d: { path: string }) => d.path),
      ['/stauts', '/methd'],
    );
    assert.match(res.body.error.message, /stauts/);
  });
});
