/** Conformance: response blobs (upload as multipart `file`, list, answer with one, delete). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { conforms, conformsError, send } from './conformance.js';

let app: TestApp;
const B = '/api/v2/endpoints/shop/blobs';
before(async () => {
  app = await startApp();
  conforms('POST /api/v2/endpoints', await send(app, 'POST', '/api/v2/endpoints', { name: 'shop' }));
});
after(async () => {
  await app.stop();
});

/** What `curl -F file=@logo.png` sends. */
async function upload(data: Buffer, fileName: string, type: string) {
  const boundary = '------------------------compat0123';
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: ${type}\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return send(app, 'POST', B, payload, {
    authorization: ADMIN_KEY,
    'content-type': `multipart/form-data; boundary=${boundary}`,
  });
}

test('upload, list, serve through a rule, refuse deletion while used, delete', async () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
  const { blobPath } = conforms(
    'POST /api/v2/endpoints/:ep/blobs',
    await upload(png, 'logo.png', 'image/png'),
  );
  assert.match(blobPath, /\.png$/);
  const list = conforms('GET /api/v2/endpoints/:ep/blobs', await send(app, 'GET', B));
  assert.deepEqual(
    list.data.map((b: { blobPath: string }) => b.blobPath),
    [blobPath],
  );
  const rule = conforms(
    'POST /api/v2/endpoints/:ep/rules',
    await send(app, 'POST', '/api/v2/endpoints/shop/rules', {
      conditions: [{ type: 'path', operator: 'equals', value: '/logo' }],
      action: { type: 'mock', status: 200, blobPath },
    }),
  );
  const served = await app.inject({ method: 'GET', url: '/e/shop/logo' });
  assert.deepEqual(served.rawPayload, png);
  conformsError(await send(app, 'DELETE', `${B}/${blobPath}`), 409, 'conflict');
  conforms(
    'DELETE /api/v2/endpoints/:ep/rules/:ruleId',
    await send(app, 'DELETE', `/api/v2/endpoints/shop/rules/${rule.id}`),
  );
  conforms('DELETE /api/v2/endpoints/:ep/blobs/:blobPath', await send(app, 'DELETE', `${B}/${blobPath}`));
  conformsError(await send(app, 'DELETE', `${B}/${blobPath}`), 404, 'not_found');
});
