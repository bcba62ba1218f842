/**
 * mTLS over real TLS sockets (SPEC §11): the server serves HTTPS on port 0 with a test certificate;
 * client certificates are made through the API and presented by node:https. A request with one of
 * the endpoint's certificates is answered; without one, with a revoked one, another endpoint's, one
 * from a look-alike CA, or an expired one, it gets 403 text/plain and is recorded as `rejected`.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'node:https';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { serverCertificate, httpsGet, type ServerCert } from './tls-fixture.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import { issueClientCert, makeCa } from '../../src/mtls/x509.js';

let server: ServerCert;
let app: TestApp;
/** The app's clock runs `offset` ms ahead: the expiry test moves it a year on. */
let offset = 0;
const clock = (): number => Date.now() + offset;
let shopCert: { id: string; cert: string; key: string };
let otherCert: { id: string; cert: string; key: string };

async function makeCert(endpoint: string, name: string) {
  const r = await call(app, 'POST', `/endpoints/${endpoint}/mtls/certificates`, { name });
  assert.equal(r.status, 201, r.text);
  return r.body as { id: string; name: string; cert: string; key: string; expiry: string; createdAt: string };
}

async function lastEntry(endpoint: string) {
  const r = await call(app, 'GET', `/endpoints/${endpoint}/requests?limit=1&mode=verbose`);
  assert.equal(r.status, 200, r.text);
  return r.body.data[0] as { status: number; behavior: string; response?: { body?: string } };
}

before(async () => {
  server = await serverCertificate();
  app = await startApp(
    { tlsCert: server.certFile, tlsKey: server.keyFile, plansFile: undefined },
    { listen: true, now: clock },
  );
  await createEndpoint(app, 'shop');
  await createEndpoint(app, 'other');
  shopCert = await makeCert('shop', 'ci runner');
  otherCert = await makeCert('other', 'someone else');
  const r = await call(app, 'PATCH', '/endpoints/shop/settings', { mtls: { enabled: true } });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.mtls, { enabled: true });
});
after(async () => {
  await app.stop();
});

void test('the answer of POST holds a certificate and its key, signed by a CA of its own, valid one year', async () => {
  const made = await makeCert('shop', 'laptop');
  assert.deepEqual(Object.keys(made).sort(), [
    'cert',
    'createdAt',
    'expiry',
    'fingerprint',
    'id',
    'key',
    'name',
  ]);
  assert.equal(made.name, 'laptop');
  const x = new X509Certificate(made.cert);
  assert.ok(x.checkPrivateKey(createPrivateKey(made.key)), 'the key belongs to the certificate');
  assert.equal(x.ca, false);
  assert.deepEqual(x.keyUsage, ['1.3.6.1.5.5.7.3.2'], 'for TLS client authentication');
  assert.match(x.issuer, /OU=shop/);
  const year = Date.parse(made.expiry) - Date.parse(made.createdAt);
  assert.ok(Math.abs(year - 365 * 86_400_000) < 2000, `expiry one year after creation (${year} ms)`);
  // Both certificates of shop come from the same CA; other's from another one.
  const first = new X509Certificate(shopCert.cert);
  assert.equal(x.issuer, first.issuer);
  assert.equal(x.verify(first.publicKey), false, 'a client certificate signs nothing');
  assert.notEqual(new X509Certificate(otherCert.cert).issuer, x.issuer);
});

void test('a request with a certificate made by the API is answered as usual', async () => {
  const r = await httpsGet(app.port, server, '/e/shop/hello', shopCert);
  assert.equal(r.status, 200, r.body);
  assert.match(r.body, /nothing configured for GET \/hello/);
  const entry = await lastEntry('shop');
  assert.equal(entry.status, 200);
  assert.equal(entry.behavior, 'default');
});

void test('a request without a certificate gets 403 text/plain, recorded as rejected', async () => {
  const r = await httpsGet(app.port, server, '/e/shop/hello');
  assert.equal(r.status, 403);
  assert.match(r.contentType ?? '', /^text\/plain/);
  assert.match(r.body, /requires a valid client certificate.*sent none/);
  const entry = await lastEntry('shop');
  assert.equal(entry.status, 403);
  assert.equal(entry.behavior, 'rejected');
});

void test("another endpoint's certificate gets 403", async () => {
  const r = await httpsGet(app.port, server, '/e/shop/hello', otherCert);
  assert.equal(r.status, 403);
  assert.match(r.body, /not one of this endpoint's/);
  assert.equal((await lastEntry('shop')).behavior, 'rejected');
});

void test('a certificate from a look-alike CA (same names, other key) gets 403', async () => {
  const foreignCa = await makeCa('shop', clock());
  const forged = await issueClientCert(foreignCa, 'shop', shopCert.id, clock(), clock() + 86_400_000);
  const r = await httpsGet(app.port, server, '/e/shop/hello', { cert: forged.certPem, key: forged.keyPem });
  assert.equal(r.status, 403);
  assert.match(r.body, /not one of this endpoint's/);
});

void test('a certificate the store lists but the CA did not sign gets 403 (its signature is checked)', async () => {
  const foreignCa = await makeCa('shop', clock());
  const forged = await issueClientCert(foreignCa, 'shop', 'planted', clock(), clock() + 86_400_000);
  // A row written into the store by other means than the API, naming the forged certificate.
  const stored = await app.ctx.store.insertMtlsCert(
    {
      id: 'planted',
      endpoint: 'shop',
      name: 'planted',
      serial: forged.serial,
      fingerprint: forged.fingerprint,
      certPem: forged.certPem,
      expiresAt: forged.notAfter,
      createdAt: clock(),
    },
    1000,
  );
  assert.ok(stored);
  app.ctx.endpoints.invalidate('shop');
  try {
    const r = await httpsGet(app.port, server, '/e/shop/hello', { cert: forged.certPem, key: forged.keyPem });
    assert.equal(r.status, 403);
    assert.match(r.body, /not signed by this endpoint's CA/);
  } finally {
    await app.ctx.store.deleteMtlsCert('shop', 'planted');
    app.ctx.endpoints.invalidate('shop');
  }
});

void test('endpoints without mtls and the API keep working over TLS without a certificate', async () => {
  const r = await httpsGet(app.port, server, '/e/other/hello');
  assert.equal(r.status, 200, r.body);
  const spec = await httpsGet(app.port, server, '/api/v2/openapi.json');
  assert.equal(spec.status, 200);
  // A certificate sent to an endpoint that does not ask for one changes nothing.
  assert.equal((await httpsGet(app.port, server, '/e/other/x', shopCert)).status, 200);
});

void test('a revoked certificate is refused at once, even on a connection that was let in', async () => {
  const made = await makeCert('shop', 'to revoke');
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const client = { cert: made.cert, key: made.key };
    assert.equal((await httpsGet(app.port, server, '/e/shop/a', client, agent)).status, 200);
    const del = await call(app, 'DELETE', `/endpoints/shop/mtls/certificates/${made.id}`);
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(del.body, { id: made.id, deleted: true });
    const again = await httpsGet(app.port, server, '/e/shop/b', client, agent);
    assert.equal(again.status, 403);
    assert.equal((await lastEntry('shop')).behavior, 'rejected');
    const fresh = await httpsGet(app.port, server, '/e/shop/c', client);
    assert.equal(fresh.status, 403);
    // The others of the endpoint still work.
    assert.equal((await httpsGet(app.port, server, '/e/shop/d', shopCert)).status, 200);
  } finally {
    agent.destroy();
  }
});

void test('the list shows certificates without their keys; a revoked one is gone from it', async () => {
  const r = await call(app, 'GET', '/endpoints/shop/mtls/certificates');
  assert.equal(r.status, 200, r.text);
  const names = (r.body.data as { name: string }[]).map((c) => c.name);
  assert.deepEqual(names, ['ci runner', 'laptop']);
  for (const c of r.body.data as Record<string, unknown>[]) {
    assert.equal(c['key'], undefined);
    assert.match(String(c['cert']), /^-----BEGIN CERTIFICATE-----/);
  }
  assert.doesNotMatch(r.text, /PRIVATE KEY/);
});

void test('an expired certificate gets 403', async () => {
  offset = 366 * 86_400_000;
  try {
    const r = await httpsGet(app.port, server, '/e/shop/hello', shopCert);
    assert.equal(r.status, 403);
    assert.match(r.body, /expired/);
  } finally {
    offset = 0;
  }
  assert.equal((await httpsGet(app.port, server, '/e/shop/hello', shopCert)).status, 200);
});

void test('turning mtls off lets requests without a certificate in again', async () => {
  let r = await call(app, 'PATCH', '/endpoints/shop/settings', { mtls: { enabled: false } });
  assert.equal(r.status, 200, r.text);
  assert.equal((await httpsGet(app.port, server, '/e/shop/hello')).status, 200);
  r = await call(app, 'PATCH', '/endpoints/shop/settings', { mtls: { enabled: true } });
  assert.equal(r.status, 200, r.text);
  assert.equal((await httpsGet(app.port, server, '/e/shop/hello')).status, 403);
});
