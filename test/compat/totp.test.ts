/** Conformance: the TOTP generator's API, with the request a login test sends. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { conforms, conformsError, send } from './conformance.js';

let app: TestApp;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app.stop();
});

test('register a secret, then read the current code by id', async () => {
  const reg = conforms(
    'POST /2FA/TOTP/',
    await send(
      app,
      'POST',
      '/2FA/TOTP/',
      { issuer: 'Acme', secret: 'JBSWY3DPEHPK3PXP', algorithm: 'SHA1' },
      {},
    ),
  );
  const again = conforms('GET /2FA/TOTP/:id', await send(app, 'GET', `/2FA/TOTP/${reg.id}`, undefined, {}));
  assert.equal(again.id, reg.id);
  assert.equal(again.expiresAt >= reg.expiresAt, true);
  assert.equal(JSON.stringify(reg).includes('JBSWY3DPEHPK3PXP'), false, 'the secret is never returned');
});

test('an unknown id is 404, an id that is not a UUID 400, a bad algorithm 400', async () => {
  conformsError(
    await send(app, 'GET', '/2FA/TOTP/3f1c2b8e-4a5d-4e6f-8a7b-9c0d1e2f3a4b', undefined, {}),
    404,
    'not_found',
  );
  conformsError(await send(app, 'GET', '/2FA/TOTP/nope', undefined, {}), 400, 'validation_error');
  conformsError(
    await send(
      app,
      'POST',
      '/2FA/TOTP/',
      { issuer: 'Acme', secret: 'JBSWY3DPEHPK3PXP', algorithm: 'MD5' },
      {},
    ),
    400,
    'validation_error',
  );
});
