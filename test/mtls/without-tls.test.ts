/**
 * mTLS on a server without TLS (SPEC §11): turning it on and making certificates are refused with 400
 * saying why; an endpoint that kept `mtls.enabled` from a start with TLS refuses every request (403)
 * rather than let it in without a certificate.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverCertificate } from './tls-fixture.js';
import { startApp } from '../helpers/app.js';
import { assertDetail, assertError, call, createEndpoint } from '../helpers/api-helpers.js';

void test('without TLS: mtls.enabled true and POST certificates are 400; listing and turning it off work', async () => {
  const app = await startApp({ plansFile: undefined });
  try {
    await createEndpoint(app, 'shop');
    const r = await call(app, 'PATCH', '/endpoints/shop/settings', { mtls: { enabled: true } });
    assertDetail(r, '/mtls/enabled', 'true');
    assert.match(r.body.error.message, /TLS_CERT and TLS_KEY/);
    assert.equal((await call(app, 'GET', '/endpoints/shop/settings')).body.mtls.enabled, false, 'not stored');
    const off = await call(app, 'PATCH', '/endpoints/shop/settings', { mtls: { enabled: false } });
    assert.equal(off.status, 200, off.text);
    const post = await call(app, 'POST', '/endpoints/shop/mtls/certificates', { name: 'x' });
    assertDetail(post, '/');
    assert.match(post.body.error.message, /TLS_CERT and TLS_KEY/);
    assert.deepEqual((await call(app, 'GET', '/endpoints/shop/mtls/certificates')).body, { data: [] });
    assertError(await call(app, 'DELETE', '/endpoints/shop/mtls/certificates/x'), 404, 'not_found');
  } finally {
    await app.stop();
  }
});

void test('an endpoint left with mtls.enabled after TLS is removed refuses requests (403, rejected)', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mb-mtls-'));
  try {
    const server = await serverCertificate();
    const withTls = await startApp({ dataDir, tlsCert: server.certFile, tlsKey: server.keyFile });
    await createEndpoint(withTls, 'shop');
    const r = await call(withTls, 'PATCH', '/endpoints/shop/settings', { mtls: { enabled: true } });
    assert.equal(r.status, 200, r.text);
    await withTls.stop();

    const plain = await startApp({ dataDir });
    try {
      assert.equal((await call(plain, 'GET', '/endpoints/shop/settings')).body.mtls.enabled, true);
      const res = await plain.inject({ method: 'GET', url: '/e/shop/hello' });
      assert.equal(res.statusCode, 403);
      assert.match(String(res.headers['content-type']), /^text\/plain/);
      assert.match(res.body, /requires a valid client certificate.*HTTPS/);
      const h = await call(plain, 'GET', '/endpoints/shop/requests?limit=1');
      assert.equal(h.body.data[0].behavior, 'rejected');
      assert.equal(h.body.data[0].status, 403);
    } finally {
      await plain.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
