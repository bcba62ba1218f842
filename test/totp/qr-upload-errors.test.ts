/** The multipart upload's refusals: wrong, missing, repeated or extra fields, non-images, and the size limit. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.js';
import { rawRequest } from '../helpers/raw.js';
import { QR_UPLOAD_LIMIT } from '../../src/totp/multipart.js';
import { startTotpApp } from './helpers.js';
import { multipart, qrPng, upload, type Part } from './qr-fixtures.js';

const URI = 'otpauth://totp/ACME:a?secret=JBSWY3DPEHPK3PXP';

async function send(app: TestApp, payload: Buffer, contentType: string) {
  const res = await app.inject({
    method: 'POST',
    url: '/2FA/TOTP/',
    payload,
    headers: { 'content-type': contentType },
  });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

async function expect400(app: TestApp, parts: Part[], message: RegExp) {
  const { payload, contentType } = multipart(parts);
  const r = await send(app, payload, contentType);
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.error.code, 'validation_error');
  assert.match(r.body.error.message, message);
  assert.equal(r.headers['access-control-allow-origin'], '*');
}

void test('the image must come alone, in the field qrcode', async () => {
  const app = await startTotpApp();
  try {
    const png = await qrPng(URI);
    await expect400(
      app,
      [{ name: 'image', filename: 'a.png', contentType: 'image/png', data: png }],
      /field "qrcode"/,
    );
    await expect400(
      app,
      [
        { name: 'issuer', data: 'ACME' },
        { name: 'qrcode', filename: 'a.png', data: png },
      ],
      /Unknown field "issuer"/,
    );
    await expect400(
      app,
      [
        { name: 'qrcode', filename: 'a.png', data: png },
        { name: 'qrcode', filename: 'b.png', data: png },
      ],
      /one image only/,
    );
    await expect400(app, [{ name: 'qrcode', filename: 'a.png', data: Buffer.alloc(0) }], /empty/);
    await expect400(app, [{ name: 'qrcode', data: 'not a file' }], /Unknown field "qrcode"|field "qrcode"/);
    await expect400(app, [], /No image/);
  } finally {
    await app.stop();
  }
});

void test('a multipart body without a boundary, or broken, is 400', async () => {
  const app = await startTotpApp();
  try {
    const r = await send(app, Buffer.from('whatever'), 'multipart/form-data');
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, 'validation_error');
    const broken = await send(
      app,
      Buffer.from('--abc\r\nContent-Disposition: form-data; name="qrcode"; filename="a"\r\n\r\nxx'),
      'multipart/form-data; boundary=abc',
    );
    assert.equal(broken.status, 400);
  } finally {
    await app.stop();
  }
});

void test('a file that is not a PNG, JPEG, GIF or WebP image is 400', async () => {
  const app = await startTotpApp();
  try {
    const { payload, contentType } = upload(Buffer.from('%PDF-1.7 not an image at all'), 'application/pdf');
    const r = await send(app, payload, contentType);
    assert.equal(r.status, 400);
    assert.match(r.body.error.message, /PNG, JPEG, GIF or WebP/);
    assert.equal(r.body.error.details[0].path, '/qrcode');
  } finally {
    await app.stop();
  }
});

void test(`upload size: ${QR_UPLOAD_LIMIT - 1} and ${QR_UPLOAD_LIMIT} bytes are read, ${QR_UPLOAD_LIMIT + 1} is 413`, async () => {
  const app = await startTotpApp();
  try {
    for (const n of [QR_UPLOAD_LIMIT - 1, QR_UPLOAD_LIMIT]) {
      const { payload, contentType } = upload(Buffer.alloc(n, 0x41));
      const r = await send(app, payload, contentType);
      // Read whole, then found not to be an image: the size was accepted.
      assert.equal(r.status, 400, String(n));
      assert.match(r.body.error.message, /PNG, JPEG, GIF or WebP/);
    }
    const { payload, contentType } = upload(Buffer.alloc(QR_UPLOAD_LIMIT + 1, 0x41));
    const r = await send(app, payload, contentType);
    assert.equal(r.status, 413);
    assert.equal(r.body.error.code, 'payload_too_large');
    assert.equal(r.headers['access-control-allow-origin'], '*');
  } finally {
    await app.stop();
  }
});

void test('a declared Content-Length far over the limit is refused at once, and the server keeps serving', async () => {
  const app = await startTotpApp({}, { listen: true });
  try {
    const head =
      'POST /2FA/TOTP/ HTTP/1.1\r\nHost: localhost\r\nContent-Type: multipart/form-data; boundary=abc\r\n' +
      `Content-Length: ${50 * 1024 * 1024}\r\n\r\n--abc\r\n`;
    const r = await rawRequest(app.port, head, 5000);
    assert.equal(r.status, 413);
    assert.equal(JSON.parse(r.body).error.code, 'payload_too_large');
    assert.equal(r.headers.connection, 'close');
    const after = await fetch(`${app.url}/2FA/TOTP/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ secret: 'JBSWY3DPEHPK3PXP' }),
    });
    assert.equal(after.status, 200);
  } finally {
    await app.stop();
  }
});

void test('an upload over the limit sent chunked is cut off with 413 over a real socket', async () => {
  const app = await startTotpApp({}, { listen: true });
  try {
    const { payload, contentType } = upload(Buffer.alloc(QR_UPLOAD_LIMIT + 1024, 0x41));
    const res = await fetch(`${app.url}/2FA/TOTP/`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: new Blob([payload]).stream(),
      duplex: 'half',
    });
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'payload_too_large');
  } finally {
    await app.stop();
  }
});
