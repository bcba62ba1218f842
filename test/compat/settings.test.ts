/**
 * Conformance: endpoint settings. GET always shows every key, an unset string left out (never `null`);
 * PATCH takes what a script sends and answers the whole settings.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { conforms, conformsError, send } from './conformance.js';

let app: TestApp;
const S = (ep: string) => `/api/v2/endpoints/${ep}/settings`;
before(async () => {
  app = await startApp();
  for (const name of ['shop', 'other']) {
    conforms('POST /api/v2/endpoints', await send(app, 'POST', '/api/v2/endpoints', { name }));
  }
});
after(async () => {
  await app.stop();
});

test('a new endpoint shows every setting, unset strings left out', async () => {
  const s = conforms('GET /api/v2/endpoints/:ep/settings', await send(app, 'GET', S('shop')));
  assert.equal('targetUrl' in s.proxy, false, 'no proxy target: left out');
  assert.equal('domain' in s.customDomain, false, 'no custom domain: left out');
  assert.deepEqual([s.customDomain.enabled, s.mtls.enabled, s.localTunnel], [false, false, false]);
});

test('PATCH answers the whole settings; GET shows the change', async () => {
  const patched = conforms(
    'PATCH /api/v2/endpoints/:ep/settings',
    await send(app, 'PATCH', S('shop'), {
      proxy: { targetUrl: 'https://api.example.com', ignoreSSLErrors: true },
      rateLimit: { enabled: true, rate: 10, period: 'Second' },
      security: { enabled: true, headerKey: 'x-secret', headerValue: 's3cret' },
      cors: { origins: ['https://app.example.com'] },
      defaultResponse: { status: 404, headers: { 'content-type': 'text/plain' }, body: 'nope' },
      customDomain: { enabled: true, domain: 'mock.example.com' },
      locale: 'de',
    }),
  );
  assert.equal(patched.proxy.targetUrl, 'https://api.example.com');
  assert.equal(patched.customDomain.domain, 'mock.example.com');
  const s = conforms('GET /api/v2/endpoints/:ep/settings', await send(app, 'GET', S('shop')));
  assert.deepEqual(s.rateLimit, { ...s.rateLimit, enabled: true, rate: 10, period: 'Second' });
  assert.equal(s.defaultResponse.status, 404);
  const off = conforms(
    'PATCH /api/v2/endpoints/:ep/settings',
    await send(app, 'PATCH', S('shop'), { proxy: { targetUrl: null } }),
  );
  assert.equal('targetUrl' in off.proxy, false, 'a target removed is left out again');
});

test('a domain another endpoint claims is 409 conflict', async () => {
  conforms(
    'PATCH /api/v2/endpoints/:ep/settings',
    await send(app, 'PATCH', S('shop'), { customDomain: { enabled: true, domain: 'taken.example.com' } }),
  );
  conformsError(
    await send(app, 'PATCH', S('other'), { customDomain: { enabled: true, domain: 'taken.example.com' } }),
    409,
    'conflict',
  );
});

test('mtls.enabled without TLS is 400; bad values are 400 validation_error', async () => {
  conformsError(await send(app, 'PATCH', S('shop'), { mtls: { enabled: true } }), 400, 'validation_error');
  conformsError(
    await send(app, 'PATCH', S('shop'), { rateLimit: { period: 'Day' } }),
    400,
    'validation_error',
  );
  conformsError(await send(app, 'PATCH', S('shop'), { nonsense: true }), 400, 'validation_error');
});
