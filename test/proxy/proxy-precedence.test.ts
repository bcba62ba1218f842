/**
 * Where the proxy stands in the pipeline (SPEC §5): a matching rule beats the proxy; with no target
 * (targetUrl null) the proxy passes and the default response answers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, mockRule } from '../helpers/api-helpers.js';
import { historyOf, proxyApp, send, upstream } from './proxy-helpers.js';

test('a rule beats the proxy; an unmatched path goes to the proxy', async () => {
  const up = await upstream((_req, res) => res.end('from upstream'));
  const app = await proxyApp(up.url);
  try {
    assert.equal((await call(app, 'POST', '/endpoints/shop/rules', mockRule('/ruled', 201))).status, 201);
    const ruled = await send(`${app.endpointUrl}/ruled`);
    assert.equal(ruled.status, 201);
    assert.equal(ruled.text, 'rule /ruled');
    assert.equal(up.seen.length, 0);
    const proxied = await send(`${app.endpointUrl}/other`);
    assert.equal(proxied.text, 'from upstream');
    assert.deepEqual(
      (await historyOf(app)).map((e) => e.behavior),
      ['proxy', 'mock-rule'],
    );
  } finally {
    await app.stop();
    await up.close();
  }
});

test('the proxy falls through to the default response when targetUrl is null', async () => {
  const up = await upstream((_req, res) => res.end('from upstream'));
  const app = await proxyApp(up.url);
  try {
    assert.equal((await send(`${app.endpointUrl}/x`)).text, 'from upstream');
    await call(app, 'PATCH', '/endpoints/shop/settings', { proxy: { targetUrl: null } });
    const res = await send(`${app.endpointUrl}/x`);
    assert.equal(res.status, 200);
    assert.match(res.text, /has nothing configured for GET \/x/);
    assert.equal(up.seen.length, 1);
    assert.equal((await historyOf(app))[0]?.behavior, 'default');
  } finally {
    await app.stop();
    await up.close();
  }
});
