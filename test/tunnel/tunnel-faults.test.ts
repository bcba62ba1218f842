/**
 * The endpoint setting `faults.tunnel` (issue 37) on real sockets: an answer that came back through the
 * local tunnel is replaced by the fault once the local service has answered, as undici sees it (its
 * error class); `faults.proxy` does not touch tunnelled answers; null clears it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { ADMIN_KEY, ALLOW_LOOPBACK, startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import { until } from '../helpers/until.js';
import { runTunnel, type TunnelHandle } from '../../src/tunnel/index.js';
import { startTarget, type Target } from './tunnel-helpers.js';

let app: TestApp;
let target: Target;
let tunnel: TunnelHandle;

before(async () => {
  target = await startTarget((_req, res) => res.end('from the laptop'));
  app = await startApp(ALLOW_LOOPBACK, { listen: true });
  await createEndpoint(app, 'tunnel-faults');
  const r = await settings({ localTunnel: true });
  assert.equal(r.status, 200, r.text);
  tunnel = runTunnel({
    server: app.url,
    endpoint: 'tunnel-faults',
    apiKey: ADMIN_KEY,
    targetHost: '127.0.0.1',
    targetPort: target.port,
    out: () => undefined,
    err: () => undefined,
  });
  await until(async () => app.ctx.tunnels.clients('tunnel-faults') > 0, 5000, 'the tunnel did not connect');
});
after(async () => {
  await tunnel?.stop();
  await app?.stop();
  await target?.close();
});

const settings = (body: unknown) => call(app, 'PATCH', '/endpoints/tunnel-faults/settings', body);
const get = (path: string) => request(`${app.url}/e/tunnel-faults${path}`);

/** The newest history entry of the endpoint, once written. */
async function newest() {
  await app.ctx.history.flush();
  return (await app.ctx.store.listHistory('tunnel-faults', {}, 1)).data[0]!;
}

test('faults.tunnel: the local service is asked, the client gets the fault, the entry says why', async () => {
  assert.equal((await settings({ faults: { tunnel: 'random_data_then_close' } })).status, 200);
  const seen = target.seen.length;
  await assert.rejects(get('/a'), { name: 'HTTPParserError' });
  assert.equal(target.seen.length, seen + 1, 'the request went through the tunnel');
  assert.equal(target.seen.at(-1)!.url, '/a');
  const e = await newest();
  assert.equal(e.behavior, 'tunnel');
  assert.equal(e.responseBody, '');
  assert.ok(
    e.problems.some((p) => p.startsWith('fault: random_data_then_close (')),
    e.problems.join(),
  );
  assert.match(e.problems.join(), /faults\.tunnel/);
});

test('each fault as undici sees it through the tunnel', async () => {
  await settings({ faults: { tunnel: 'connection_reset' } });
  await assert.rejects(get('/reset'), { code: 'ECONNRESET' });
  await settings({ faults: { tunnel: 'empty_response' } });
  await assert.rejects(get('/empty'), { name: 'SocketError', code: 'UND_ERR_SOCKET' });
  await settings({ faults: { tunnel: 'timeout' } });
  const held = request(`${app.url}/e/tunnel-faults/held`, { headersTimeout: 300 });
  await assert.rejects(held, { name: 'HeadersTimeoutError' });
  await settings({ faults: { tunnel: 'malformed_chunk' } });
  await assert.rejects(
    async () => {
      const r = await get('/chunk');
      await r.body.text();
    },
    { name: 'HTTPParserError' },
  );
});

test('faults.proxy leaves tunnelled answers alone; null clears faults.tunnel', async () => {
  await settings({ faults: { tunnel: null, proxy: 'connection_reset' } });
  const r = await get('/ok');
  assert.equal(r.statusCode, 200);
  assert.equal(await r.body.text(), 'from the laptop');
  assert.deepEqual((await settings({ faults: { proxy: null } })).body.faults, {});
});
