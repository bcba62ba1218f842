/** History retention: the server-wide period and cap, and a plan's shorter period. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pruneHistoryOnce } from '../../src/background.js';
import { entry } from '../helpers/history-fixtures.js';
import { redactUrl } from '../../src/logger.js';
import { startApp } from '../helpers/app.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 22, 12);

/** An entry of `endpoint` that arrived `ageMs` before NOW. */
function aged(endpoint: string, ageMs: number) {
  return entry(endpoint, { createdAt: NOW - ageMs });
}

test('entries older than the retention period go; a free plan keeps one day; the cap keeps the newest', async () => {
  const app = await startApp({ historyRetentionDays: 10, historyMaxEntries: 3 }, { now: () => NOW });
  try {
    const { store } = app.ctx;
    await store.createEndpoint({ name: 'paid', createdAt: NOW, settings: { plan: 'unlimited' } });
    await store.createEndpoint({ name: 'cheap', createdAt: NOW, settings: { plan: 'free' } });
    await store.insertHistory([
      aged('paid', 11 * DAY), // past 10 days: goes
      aged('paid', 9 * DAY), // kept
      aged('paid', DAY + 1000), // kept on an unlimited plan
      aged('cheap', DAY + 1000), // past the free plan's day: goes
      aged('cheap', DAY - 1000), // kept
      ...[1, 2, 3, 4].map((i) => aged('echo', i * 1000)), // cap 3: the oldest goes
    ]);
    const pruned = await pruneHistoryOnce(app.ctx);
    assert.equal(pruned, 3);
    assert.equal(await store.countHistory('paid', {}), 2);
    assert.equal(await store.countHistory('cheap', {}), 1);
    const echo = await store.listHistory('echo', {}, 10);
    assert.deepEqual(
      echo.data.map((e) => NOW - e.createdAt),
      [1000, 2000, 3000],
    );
    assert.equal(await pruneHistoryOnce(app.ctx), 0, 'a second pass finds nothing');
  } finally {
    await app.stop();
  }
});

test('the request log line hides an access_token', () => {
  assert.equal(
    redactUrl('/api/v2/endpoints/a/events?access_token=mb_secret&x=1'),
    '/api/v2/endpoints/a/events?access_token=[redacted]&x=1',
  );
  assert.equal(redactUrl('/plain?x=1'), '/plain?x=1');
});
