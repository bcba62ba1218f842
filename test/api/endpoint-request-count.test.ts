/** GET /endpoints gives each endpoint's history size (`requestCount`), which the dashboard lists. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { adminAuth, startApp } from '../helpers/app.js';

void test('the endpoint list counts each endpoint’s recorded requests', async () => {
  const app = await startApp();
  try {
    await app.inject({
      method: 'POST',
      url: '/api/v2/endpoints',
      headers: adminAuth,
      payload: { name: 'shop' },
    });
    for (let i = 0; i < 3; i++) await app.inject({ url: `/e/shop/x${i}` });
    await app.inject({ url: '/e/echo/y' });
    await app.ctx.history.flush();
    const deadline = Date.now() + 5000;
    let counts: Record<string, number> = {};
    do {
      const r = await app.inject({ url: '/api/v2/endpoints', headers: adminAuth });
      assert.equal(r.statusCode, 200);
      counts = Object.fromEntries(
        r.json().data.map((e: { name: string; requestCount: number }) => [e.name, e.requestCount]),
      );
      if (counts['shop'] === 3) break;
      await new Promise((res) => setTimeout(res, 50));
    } while (Date.now() < deadline);
    assert.equal(counts['shop'], 3);
    assert.equal(counts['echo'], 1);
  } finally {
    await app.stop();
  }
});
