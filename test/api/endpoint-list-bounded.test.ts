/**
 * Stops: the endpoint list counting each endpoint's history with a query of its own (issue 30, item 2).
 * With 10,001 endpoints `GET /api/v2/endpoints` ran 10,001 counts and held the API for 12.5-19.8 s. Now
 * the counts come from one grouped query, whatever the number of endpoints, on SQLite and PostgreSQL;
 * the counts stay exact (hidden entries of a filtered delete are not counted).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Config } from '../../src/config.js';
import { adminAuth, startApp } from '../helpers/app.js';
import { freshPgDatabase, pgSkip } from '../helpers/pg.js';
import { entry } from '../helpers/history-fixtures.js';

const ENDPOINTS = 2000;

async function listIsOneCount(overrides: Partial<Config>): Promise<void> {
  const app = await startApp(overrides);
  try {
    const store = app.ctx.store;
    const names = Array.from({ length: ENDPOINTS }, (_, i) => `many-${String(i).padStart(5, '0')}`);
    for (const name of names) await store.createEndpoint({ name, createdAt: 0, settings: {} });
    await store.insertHistory([
      entry('many-00000', { path: '/a' }),
      entry('many-00000', { path: '/b' }),
      entry('many-00000', { path: '/gone' }),
      entry('many-01999', { path: '/c' }),
    ]);
    // A filtered delete hides its entries at once; the list must not count them.
    assert.equal(await store.deleteHistory('many-00000', { path: { substring: '/gone' } }), 1);

    let perEndpoint = 0;
    let grouped = 0;
    const countOne = store.countHistory.bind(store);
    const countAll = store.countHistoryByEndpoint.bind(store);
    store.countHistory = (...a) => (perEndpoint++, countOne(...a));
    store.countHistoryByEndpoint = () => (grouped++, countAll());

    const started = performance.now();
    const r = await app.inject({ url: '/api/v2/endpoints', headers: adminAuth });
    const took = performance.now() - started;
    assert.equal(r.statusCode, 200);
    const counts = new Map(
      (r.json().data as { name: string; requestCount: number }[]).map((e) => [e.name, e.requestCount]),
    );
    assert.ok(counts.size >= ENDPOINTS, `all ${ENDPOINTS} endpoints listed (got ${counts.size})`);
    assert.equal(counts.get('many-00000'), 2);
    assert.equal(counts.get('many-01999'), 1);
    assert.equal(counts.get('many-00500'), 0);
    assert.equal(perEndpoint, 0, 'no count per endpoint');
    assert.equal(grouped, 1, 'one grouped count');
    // 2,000 counts took about 2.5 s here; the grouped query and 2,000 rows take tens of ms.
    assert.ok(took < 1500, `the list took ${took.toFixed(0)} ms`);
  } finally {
    await app.stop();
  }
}

void test('SQLite: GET /endpoints with 2,000 endpoints counts their history in one query', async () => {
  await listIsOneCount({});
});

void test(
  'PostgreSQL: GET /endpoints with 2,000 endpoints counts their history in one query',
  { skip: pgSkip },
  async () => {
    const db = await freshPgDatabase();
    try {
      await listIsOneCount({ databaseUrl: db.url });
    } finally {
      await db.drop();
    }
  },
);
