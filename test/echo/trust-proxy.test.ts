/**
 * TRUST_PROXY (SPEC §1): X-Forwarded-For and X-Forwarded-Proto decide the echo's `ip` and `protocol`
 * only when the setting is on; otherwise a client could claim any address.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { rawEcho, rawHttp, type Echo } from './echo-helpers.js';

async function echo(app: TestApp, headers: Record<string, string>): Promise<Echo> {
  const res = await app.inject({ method: 'GET', url: '/e/echo/who', headers });
  assert.equal(res.statusCode, 200);
  return res.json();
}

void describe('without TRUST_PROXY', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({}, { listen: true });
  });
  after(async () => {
    await app.stop();
  });

  void it('is off by default', () => {
    assert.equal(app.ctx.config.trustProxy, false);
  });

  void it('ignores X-Forwarded-For and X-Forwarded-Proto but still shows them as headers', async () => {
    const doc = await echo(app, { 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https' });
    assert.equal(doc.ip, '127.0.0.1');
    assert.equal(doc.protocol, 'http');
    assert.equal(doc.headers['x-forwarded-for'], '203.0.113.9');
  });

  void it('shows the socket address over a real connection', async () => {
    const { doc } = await rawEcho(app.port, rawHttp('GET', '/e/echo/', [['X-Forwarded-For', '203.0.113.9']]));
    assert.equal(doc.ip, '127.0.0.1');
  });
});

void describe('with TRUST_PROXY', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ trustProxy: true }, { listen: true });
  });
  after(async () => {
    await app.stop();
  });

  void it('takes the client address from X-Forwarded-For and the scheme from X-Forwarded-Proto', async () => {
    const doc = await echo(app, { 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https' });
    assert.equal(doc.ip, '203.0.113.9');
    assert.equal(doc.protocol, 'https');
  });

  void it('takes the first address of a list, the original client', async () => {
    const doc = await echo(app, {
      'x-forwarded-for': '198.51.100.4, 10.0.0.2, 10.0.0.1',
      'x-forwarded-proto': 'https, http',
    });
    assert.equal(doc.ip, '198.51.100.4');
    assert.equal(doc.protocol, 'https');
  });

  void it('drops a port some proxies add, for IPv4 and bracketed IPv6', async () => {
    assert.equal((await echo(app, { 'x-forwarded-for': '198.51.100.4:50312' })).ip, '198.51.100.4');
    assert.equal((await echo(app, { 'x-forwarded-for': '[2001:db8::7]:443' })).ip, '2001:db8::7');
    assert.equal((await echo(app, { 'x-forwarded-for': '2001:db8::8' })).ip, '2001:db8::8');
    assert.equal((await echo(app, { 'x-forwarded-for': '::ffff:192.0.2.5' })).ip, '192.0.2.5');
  });

  void it('falls back to the socket address when X-Forwarded-For is not an address', async () => {
    for (const v of ['unknown', '', 'not an ip, 1.2.3.4', '<script>']) {
      assert.equal((await echo(app, { 'x-forwarded-for': v })).ip, '127.0.0.1', v);
    }
  });

  void it('keeps the socket scheme for an X-Forwarded-Proto that is neither http nor https', async () => {
    assert.equal((await echo(app, { 'x-forwarded-proto': 'gopher' })).protocol, 'http');
  });

  void it('uses the first X-Forwarded-For header when a client sends several (raw socket)', async () => {
    const { doc } = await rawEcho(
      app.port,
      rawHttp('GET', '/e/echo/', [
        ['X-Forwarded-For', '198.51.100.1'],
        ['X-Forwarded-For', '198.51.100.2'],
      ]),
    );
    assert.equal(doc.ip, '198.51.100.1');
    assert.deepEqual(doc.warnings, ['Duplicate headers found: x-forwarded-for']);
  });
});
