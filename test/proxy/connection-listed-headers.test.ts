/**
 * Stops: headers named in `Connection` passed on (issue 30, item 4). RFC 9110 §7.6.1: every header a
 * `Connection` line lists belongs to that one connection, and whatever passes a message on drops it, in
 * both directions. Checked with several `Connection` lines, names in any letter case and spacing, on each
 * way Mockingbird passes a message on: the HTTP proxy, a rule callout (`forward`, sync) and the tunnel.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { runTunnel, type TunnelHandle } from '../../src/tunnel/index.js';
import { ADMIN_KEY, ALLOW_LOOPBACK, startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import { until } from '../helpers/until.js';
import { send, upstream, type Received, type Upstream } from './proxy-helpers.js';

/** The request: two Connection lines naming three headers, odd case and spacing; one header not named. */
const REQUEST_HEADERS = [
  'Host',
  'x',
  'Connection',
  'keep-alive, X-Req-One',
  'Connection',
  'x-REQ-two ,\tX-Req-Three',
  'X-Req-One',
  '1',
  'X-Req-Two',
  '2',
  'X-Req-Three',
  '3',
  'X-Req-Kept',
  'kept',
];
const REQUEST_DROPPED = ['x-req-one', 'x-req-two', 'x-req-three'];

/** The service answers with two Connection lines naming three headers, and one header not named. */
function answer(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, [
    ['Content-Type', 'text/plain'],
    ['Connection', 'X-Res-One'],
    ['Connection', ' x-res-TWO,X-Res-Three '],
    ['X-Res-One', '1'],
    ['X-Res-Two', '2'],
    ['X-Res-Three', '3'],
    ['X-Res-Kept', 'kept'],
  ]);
  res.end('ok');
}
const RESPONSE_DROPPED = ['x-res-one', 'x-res-two', 'x-res-three'];

function assertDropped(up: Upstream, res: Received, how: string): void {
  assert.equal(res.status, 200, `${how}: ${res.text}`);
  const seen = up.seen.at(-1);
  assert.ok(seen, `${how}: the service got no request`);
  for (const h of REQUEST_DROPPED) assert.equal(seen.headers[h], undefined, `${how}: ${h} went up`);
  assert.equal(seen.headers['x-req-kept'], 'kept', how);
  for (const h of RESPONSE_DROPPED) assert.equal(res.headers[h], undefined, `${how}: ${h} came back`);
  assert.equal(res.headers['x-res-kept'], 'kept', how);
}

describe('headers named in Connection are dropped both ways', () => {
  let app: TestApp;
  let service: Upstream;
  let tunnel: TunnelHandle;

  before(async () => {
    service = await upstream(answer);
    app = await startApp(ALLOW_LOOPBACK, { listen: true });
    await createEndpoint(app, 'proxied');
    await call(app, 'PATCH', '/endpoints/proxied/settings', { proxy: { targetUrl: service.url } });
    await createEndpoint(app, 'calling');
    const r = await call(app, 'POST', '/endpoints/calling/rules', {
      conditions: [{ type: 'path', operator: 'equals', value: '/hook' }],
      action: { type: 'callout', behavior: 'sync', callout: { url: `${service.url}/hook` } },
    });
    assert.equal(r.status, 201, r.text);
    await createEndpoint(app, 'tunneled');
    await call(app, 'PATCH', '/endpoints/tunneled/settings', { localTunnel: true });
    tunnel = runTunnel({
      server: app.url,
      endpoint: 'tunneled',
      apiKey: ADMIN_KEY,
      targetHost: '127.0.0.1',
      targetPort: service.port,
      out: () => undefined,
      err: () => undefined,
    });
    await until(async () => app.ctx.tunnels.clients('tunneled') > 0, 5000, 'the tunnel did not connect');
  });
  after(async () => {
    await tunnel?.stop();
    await app?.stop();
    await service?.close();
  });

  it('the HTTP proxy', async () => {
    assertDropped(service, await send(`${app.url}/e/proxied/x`, { headers: REQUEST_HEADERS }), 'proxy');
  });

  it('a sync rule callout (transform: forward)', async () => {
    assertDropped(service, await send(`${app.url}/e/calling/hook`, { headers: REQUEST_HEADERS }), 'callout');
  });

  it('the local tunnel', async () => {
    assertDropped(service, await send(`${app.url}/e/tunneled/x`, { headers: REQUEST_HEADERS }), 'tunnel');
  });
});
