/** Response blobs (SPEC §4): upload, list, answer with one, delete (409 while a rule uses it), limits. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, adminAuth, type TestApp } from '../helpers/app.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';

function multipart(field: string, fileName: string, contentType: string, data: Buffer) {
  const boundary = 'mbblobboundary';
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\nContent-Type: ${contentType}\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

function upload(
  app: TestApp,
  ep: string,
  data: Buffer,
  fileName = 'logo.png',
  type = 'image/png',
  field = 'file',
) {
  const m = multipart(field, fileName, type, data);
  return app.inject({
    method: 'POST',
    url: `/api/v2/endpoints/${ep}/blobs`,
    headers: { ...adminAuth, ...m.headers },
    payload: m.payload,
  });
}

test('upload, list, answer with a blob, refuse unknown names, delete after the rule is gone', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'blobby');
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    const up = await upload(app, 'blobby', png);
    assert.equal(up.statusCode, 201, up.body);
    const { blobPath } = JSON.parse(up.body) as { blobPath: string };
    assert.match(blobPath, /^res-body-\d{8}T\d{6}Z-[0-9a-f]{8}\.png$/);
    const list = await call(app, 'GET', '/endpoints/blobby/blobs');
    assert.deepEqual(
      list.body.data.map((b: { blobPath: string; contentType: string; size: number }) => [
        b.blobPath,
        b.contentType,
        b.size,
      ]),
      [[blobPath, 'image/png', png.length]],
    );
    const rule = await call(app, 'POST', '/endpoints/blobby/rules', {
      conditions: [{ type: 'path', operator: 'equals', value: '/logo' }],
      action: { type: 'mock', blobPath },
    });
    assert.equal(rule.status, 201, rule.text);
    const r = await app.inject({ method: 'GET', url: '/e/blobby/logo' });
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['content-type'], 'image/png');
    assert.deepEqual(r.rawPayload, png);
    const unknown = await call(app, 'POST', '/endpoints/blobby/rules', {
      conditions: [{ type: 'path', operator: 'equals', value: '/x' }],
      action: { type: 'mock', blobPath: 'res-body-nope.png' },
    });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.details[0].path, '/action/blobPath');
    const busy = await call(app, 'DELETE', `/endpoints/blobby/blobs/${blobPath}`);
    assert.equal(busy.status, 409);
    assert.equal(busy.body.error.code, 'conflict');
    await call(app, 'DELETE', `/endpoints/blobby/rules/${rule.body.id as string}`);
    assert.deepEqual((await call(app, 'DELETE', `/endpoints/blobby/blobs/${blobPath}`)).body, {
      blobPath,
      deleted: true,
    });
    assert.equal((await call(app, 'DELETE', `/endpoints/blobby/blobs/${blobPath}`)).status, 404);
  } finally {
    await app.stop();
  }
});

test('BLOB_LIMIT: limit − 1 and limit bytes are stored, limit + 1 is 413', async () => {
  const app = await startApp({ blobLimit: 2048 });
  try {
    await createEndpoint(app, 'blobby');
    assert.equal((await upload(app, 'blobby', Buffer.alloc(2047, 1))).statusCode, 201);
    assert.equal((await upload(app, 'blobby', Buffer.alloc(2048, 1))).statusCode, 201);
    const over = await upload(app, 'blobby', Buffer.alloc(2049, 1));
    assert.equal(over.statusCode, 413);
    assert.equal(JSON.parse(over.body).error.code, 'payload_too_large');
  } finally {
    await app.stop();
  }
});

test('a wrong field, an empty file, JSON instead of multipart, the echo endpoint: refused', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'blobby');
    assert.equal(
      (await upload(app, 'blobby', Buffer.from('x'), 'a.txt', 'text/plain', 'other')).statusCode,
      400,
    );
    assert.equal((await upload(app, 'blobby', Buffer.alloc(0))).statusCode, 400);
    assert.equal((await call(app, 'POST', '/endpoints/blobby/blobs', { file: 'x' })).status, 400);
    assert.equal((await upload(app, 'echo', Buffer.from('x'))).statusCode, 403);
    assert.equal((await upload(app, 'missing', Buffer.from('x'))).statusCode, 404);
  } finally {
    await app.stop();
  }
});
