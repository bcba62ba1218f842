/**
 * The certificate routes (SPEC §11) through inject(), on a server with TLS configured: input
 * validation, the per-endpoint cap, 404s, scoped keys, the built-in echo, and what deleting an
 * endpoint takes with it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serverCertificate } from './tls-fixture.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertDetail, assertError, call, createEndpoint, scopedKey } from '../helpers/api-helpers.js';
import { MAX_CERTIFICATES } from '../../src/mtls/index.js';

let app: TestApp;
const certs = (ep: string) => `/endpoints/${ep}/mtls/certificates`;

before(async () => {
  const server = await serverCertificate();
  app = await startApp({ tlsCert: server.certFile, tlsKey: server.keyFile, plansFile: undefined });
  await createEndpoint(app, 'shop');
  await createEndpoint(app, 'other');
});
after(async () => {
  await app.stop();
});

void test('name: 1 to 100 characters, nothing else in the body', async () => {
  assertDetail(await call(app, 'POST', certs('shop'), { name: '' }), '/name');
  assertDetail(await call(app, 'POST', certs('shop'), { name: 'x'.repeat(101) }), '/name');
  assertDetail(await call(app, 'POST', certs('shop'), {}), '/name');
  assertError(await call(app, 'POST', certs('shop'), { name: 'a', days: 3 }), 400, 'validation_error');
  assertError(await call(app, 'GET', `${certs('shop')}?all=true`), 400, 'validation_error');
  const r = await call(app, 'POST', certs('shop'), { name: 'x'.repeat(100) });
  assert.equal(r.status, 201, r.text);
  assert.equal((await call(app, 'DELETE', `${certs('shop')}/${r.body.id}`)).status, 200);
});

void test('DELETE of an unknown certificate, or one already revoked, is 404', async () => {
  assertError(await call(app, 'DELETE', `${certs('shop')}/nope`), 404, 'not_found');
  const made = await call(app, 'POST', certs('shop'), { name: 'once' });
  assert.equal(made.status, 201, made.text);
  // Another endpoint's id is unknown here.
  assertError(await call(app, 'DELETE', `${certs('other')}/${made.body.id}`), 404, 'not_found');
  assert.equal((await call(app, 'DELETE', `${certs('shop')}/${made.body.id}`)).status, 200);
  assertError(await call(app, 'DELETE', `${certs('shop')}/${made.body.id}`), 404, 'not_found');
  assertError(await call(app, 'GET', '/endpoints/nope-nope/mtls/certificates'), 404, 'not_found');
});

void test(`an endpoint holds at most ${MAX_CERTIFICATES} certificates (409 past it); revoking makes room`, async () => {
  await createEndpoint(app, 'full');
  for (let i = 0; i < MAX_CERTIFICATES - 1; i++) {
    const r = await call(app, 'POST', certs('full'), { name: `c${i}` });
    assert.equal(r.status, 201, r.text);
  }
  const last = await call(app, 'POST', certs('full'), { name: 'the last one' });
  assert.equal(last.status, 201, 'the limit itself is allowed');
  const over = await call(app, 'POST', certs('full'), { name: 'one too many' });
  assertError(over, 409, 'conflict');
  assert.match(over.body.error.message, new RegExp(`${MAX_CERTIFICATES} client certificates`));
  assert.equal((await call(app, 'GET', certs('full'))).body.data.length, MAX_CERTIFICATES);
  assert.equal((await call(app, 'DELETE', `${certs('full')}/${last.body.id}`)).status, 200);
  assert.equal((await call(app, 'POST', certs('full'), { name: 'room again' })).status, 201);
});

void test('a scoped key manages its own endpoint only (403 elsewhere)', async () => {
  const key = `Bearer ${await scopedKey(app, 'shop')}`;
  const own = await call(app, 'POST', certs('shop'), { name: 'mine' }, key);
  assert.equal(own.status, 201, own.text);
  assert.equal((await call(app, 'GET', certs('shop'), undefined, key)).status, 200);
  assertError(await call(app, 'POST', certs('other'), { name: 'theirs' }, key), 403, 'forbidden');
  assertError(await call(app, 'GET', certs('other'), undefined, key), 403, 'forbidden');
  assertError(await call(app, 'DELETE', `${certs('other')}/x`, undefined, key), 403, 'forbidden');
  assertError(
    await call(app, 'PATCH', '/endpoints/other/settings', { mtls: { enabled: true } }, key),
    403,
    'forbidden',
  );
  assert.equal((await call(app, 'DELETE', `${certs('shop')}/${own.body.id}`, undefined, key)).status, 200);
  assertError(await call(app, 'GET', certs('shop'), undefined, null), 401, 'missing_authentication');
});

void test('the built-in echo endpoint has no certificates (403)', async () => {
  assertError(await call(app, 'POST', certs('echo'), { name: 'x' }), 403, 'forbidden');
});

void test('the CA key is stored sealed, and deleting the endpoint deletes its CA and certificates', async () => {
  await createEndpoint(app, 'gone');
  const made = await call(app, 'POST', certs('gone'), { name: 'x' });
  assert.equal(made.status, 201, made.text);
  const ca = await app.ctx.store.getMtlsCa('gone');
  assert.ok(ca);
  assert.match(ca.keyEnc, /^v1\./);
  assert.doesNotMatch(ca.keyEnc, /PRIVATE KEY/);
  assert.equal((await call(app, 'DELETE', '/endpoints/gone')).status, 200);
  assert.equal(await app.ctx.store.getMtlsCa('gone'), undefined);
  await createEndpoint(app, 'gone');
  assert.deepEqual((await call(app, 'GET', certs('gone'))).body, { data: [] });
  const again = await call(app, 'POST', certs('gone'), { name: 'y' });
  assert.equal(again.status, 201);
  assert.notEqual((await app.ctx.store.getMtlsCa('gone'))?.certPem, ca.certPem, 'a new CA');
});

void test('two first certificates made at once share one CA', async () => {
  await createEndpoint(app, 'race');
  const [a, b] = await Promise.all([
    call(app, 'POST', certs('race'), { name: 'a' }),
    call(app, 'POST', certs('race'), { name: 'b' }),
  ]);
  assert.equal(a.status, 201);
  assert.equal(b.status, 201);
  const { X509Certificate } = await import('node:crypto');
  const ca = new X509Certificate((await app.ctx.store.getMtlsCa('race'))!.certPem);
  for (const r of [a, b]) assert.ok(new X509Certificate(r.body.cert as string).verify(ca.publicKey));
});
