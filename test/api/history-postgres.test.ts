/**
 * The history API on PostgreSQL (DATABASE_URL; skipped without it): the filters whose SQL differs by
 * dialect (regular expressions, substrings), pages, files, and a regular expression that JavaScript
 * accepts but PostgreSQL refuses, which must be a 400 and not a 500.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { freshPgDatabase, pgSkip, suiteOrSkip } from '../helpers/pg.js';
import { allIds, api, entry, newEndpoint } from '../helpers/history-fixtures.js';

suiteOrSkip('history API on PostgreSQL', pgSkip, () => {
  let app: TestApp;
  let drop: () => Promise<void>;
  before(async () => {
    const db = await freshPgDatabase();
    drop = db.drop;
    app = await startApp({ databaseUrl: db.url });
  });
  after(async () => {
    await app?.stop();
    await drop?.();
  });

  async function seeded(): Promise<{ ep: string; ids: string[] }> {
    const ep = await newEndpoint(app, 'pg');
    const now = Date.now();
    const rows = [
      entry(ep, { createdAt: now - 3000, path: '/users/1', requestBody: 'Ann', status: 200 }),
      entry(ep, { createdAt: now - 2000, path: '/users/22?x=1', responseBody: 'Bob', status: 500 }),
      entry(ep, { createdAt: now - 1000, path: '/orders/3', requestBody: 'ann', status: 404 }, [
        { fieldName: 'doc', fileName: 'a.txt', contentType: 'text/plain', size: 2, data: Buffer.from('hi') },
      ]),
    ];
    await app.ctx.store.insertHistory(rows);
    return { ep, ids: rows.map((r) => r.entry.id) };
  }

  void test('path regex, substring and case-sensitive body filters select the same entries as on SQLite', async () => {
    const { ep, ids } = await seeded();
    const sel = async (q: string) => (await allIds(app, ep, q)).sort();
    assert.deepEqual(await sel('path=' + encodeURIComponent('/^\\/users\\/\\d+$/')), [ids[0]].sort());
    assert.deepEqual(await sel('path=' + encodeURIComponent('/users/2')), [ids[1]].sort());
    assert.deepEqual(await sel('requestBody=ann'), [ids[2]].sort());
    assert.deepEqual(await sel('responseBody=Bob&status=500'), [ids[1]].sort());
  });

  void test('pages, a filtered delete and its files', async () => {
    const { ep, ids } = await seeded();
    const first = await api(app, 'GET', `/endpoints/${ep}/requests?limit=2`);
    assert.deepEqual(
      first.body.data.map((e: { id: string }) => e.id),
      [ids[2], ids[1]],
    );
    const second = await api(
      app,
      'GET',
      `/endpoints/${ep}/requests?limit=2&cursor=${first.body.pagination.cursor}`,
    );
    assert.deepEqual(
      second.body.data.map((e: { id: string }) => e.id),
      [ids[0]],
    );
    const del = await api(app, 'DELETE', `/endpoints/${ep}/requests?path=orders`);
    assert.deepEqual(del.body, { deleted: true, count: 1 });
    assert.equal(await app.ctx.store.getHistoryFile(ep, ids[2]!, 'doc'), undefined);
    assert.deepEqual((await allIds(app, ep)).sort(), [ids[0], ids[1]].sort());
  });

  void test('a regular expression JavaScript accepts and PostgreSQL refuses is a 400 at /path', async () => {
    const { ep } = await seeded();
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await api(
        app,
        method,
        `/endpoints/${ep}/requests?path=${encodeURIComponent('/(?<n>users)/')}`,
      );
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'validation_error');
      assert.equal(res.body.error.details[0].path, '/path');
    }
    assert.equal((await allIds(app, ep)).length, 3);
  });
});
