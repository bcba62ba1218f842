/**
 * The fallback chain's order where two links are set up at once (SPEC §5 step 4): a connected
 * tunnel answers before the proxy, and once its client has gone the proxy answers; the proxy answers
 * before an OpenAPI spec, which answers once the proxy target is removed. (A rule before
 * each link, and each link falling through to the default, are in test/tunnel and test/proxy.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALLOW_LOOPBACK } from '../helpers/app.js';
import { useApp } from '../helpers/endpoint.js';
import { until } from '../helpers/until.js';
import { api, startTarget, startTunnelCli, tunnelEndpoint } from '../tunnel/tunnel-helpers.js';
import { uploadSpec } from '../oas/oas-helpers.js';
import { PETSTORE_30_YAML } from '../oas/fixtures.js';

test('a live tunnel beats the proxy; with the tunnel gone the proxy answers', async (t) => {
  const app = await useApp(t, ALLOW_LOOPBACK, { listen: true });
  const local = await startTarget((_req, res) => res.end('from the tunnel'));
  t.after(() => local.close());
  const upstream = await startTarget((_req, res) => res.end('from the proxy'));
  t.after(() => upstream.close());

  await tunnelEndpoint(app.port, 'chain');
  await api(app.port, 'PATCH', '/endpoints/chain/settings', {
    proxy: { targetUrl: `http://127.0.0.1:${upstream.port}` },
  });
  const tunnel = startTunnelCli(app.port, 'chain', local.port);
  t.after(() => tunnel.child.kill('SIGKILL'));
  await tunnel.connected();

  const viaTunnel = await fetch(`${app.url}/e/chain/users`);
  assert.equal(await viaTunnel.text(), 'from the tunnel');
  assert.equal(upstream.seen.length, 0, 'the proxy target was not asked');

  tunnel.child.kill('SIGTERM');
  await tunnel.exited;
  await until(async () => {
    const r = await fetch(`${app.url}/e/chain/users`);
    return (await r.text()) === 'from the proxy';
  }, 5000);
  await app.ctx.history.flush();
  const behaviors = (await app.ctx.store.listHistory('chain', {}, 10)).data.map((e) => e.behavior);
  assert.equal(behaviors.at(-1), 'tunnel');
  assert.equal(behaviors[0], 'proxy');
});

test('the proxy beats an OpenAPI spec; with no proxy target the spec answers', async (t) => {
  const app = await useApp(t, ALLOW_LOOPBACK, { listen: true });
  const upstream = await startTarget((_req, res) => res.end('from the proxy'));
  t.after(() => upstream.close());
  await api(app.port, 'POST', '/endpoints', { name: 'specs' });
  await uploadSpec(app, 'specs', PETSTORE_30_YAML);
  await api(app.port, 'PATCH', '/endpoints/specs/settings', {
    proxy: { targetUrl: `http://127.0.0.1:${upstream.port}` },
  });

  const proxied = await fetch(`${app.url}/e/specs/pets`);
  assert.equal(await proxied.text(), 'from the proxy');

  await api(app.port, 'PATCH', '/endpoints/specs/settings', { proxy: { targetUrl: null } });
  const fromSpec = await fetch(`${app.url}/e/specs/pets`);
  assert.equal(fromSpec.status, 200);
  assert.ok(Array.isArray(await fromSpec.json()), 'the spec answers GET /pets with its array of pets');
  await app.ctx.history.flush();
  const behaviors = (await app.ctx.store.listHistory('specs', {}, 10)).data.map((e) => e.behavior);
  assert.deepEqual(behaviors, ['oas', 'proxy']);
});
