/**
 * Conformance: TLS client certificates. Without TLS the routes answer (an empty list, 400 on create);
 * with TLS configured a certificate is made (the key shown once), listed without its key, and revoked.
 *
 * The TLS case needs a server certificate; it borrows the mTLS tests' fixture (test/mtls/tls-fixture.ts),
 * loaded at run time so that this file also runs on a tree where that fixture is not there yet (then
 * the TLS case is skipped, saying so).
 */
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp } from '../helpers/app.js';
import { conforms, conformsError, send } from './conformance.js';

const C = '/api/v2/endpoints/shop/mtls/certificates';
const FIXTURE = new URL('../mtls/tls-fixture.ts', import.meta.url);

test('without TLS: the list answers, making a certificate is 400, an unknown one 404', async () => {
  const app = await startApp();
  try {
    conforms('POST /api/v2/endpoints', await send(app, 'POST', '/api/v2/endpoints', { name: 'shop' }));
    const list = conforms('GET /api/v2/endpoints/:ep/mtls/certificates', await send(app, 'GET', C));
    assert.deepEqual(list.data, []);
    conformsError(await send(app, 'POST', C, { name: 'ci' }), 400, 'validation_error');
    conformsError(await send(app, 'DELETE', `${C}/nope`), 404, 'not_found');
  } finally {
    await app.stop();
  }
});

test(
  'with TLS: create (key shown once), list without keys, revoke',
  { skip: existsSync(FIXTURE) ? false : 'test/mtls/tls-fixture.ts is not in this tree yet' },
  async () => {
    const fixture = (await import(FIXTURE.href)) as {
      serverCertificate(): Promise<{ certFile: string; keyFile: string }>;
    };
    const server = await fixture.serverCertificate();
    const app = await startApp({ tlsCert: server.certFile, tlsKey: server.keyFile });
    try {
      conforms('POST /api/v2/endpoints', await send(app, 'POST', '/api/v2/endpoints', { name: 'shop' }));
      const made = conforms(
        'POST /api/v2/endpoints/:ep/mtls/certificates',
        await send(app, 'POST', C, { name: 'ci' }),
      );
      assert.equal(made.name, 'ci');
      const list = conforms('GET /api/v2/endpoints/:ep/mtls/certificates', await send(app, 'GET', C));
      assert.deepEqual(
        list.data.map((c: { id: string }) => c.id),
        [made.id],
      );
      assert.ok(!JSON.stringify(list).includes(made.key), 'the key is shown only once');
      const gone = conforms(
        'DELETE /api/v2/endpoints/:ep/mtls/certificates/:certId',
        await send(app, 'DELETE', `${C}/${made.id}`),
      );
      assert.equal(gone.id, made.id);
      const on = conforms(
        'PATCH /api/v2/endpoints/:ep/settings',
        await send(app, 'PATCH', '/api/v2/endpoints/shop/settings', { mtls: { enabled: true } }),
      );
      assert.equal(on.mtls.enabled, true);
    } finally {
      await app.stop();
    }
  },
);
