/**
 * Registering by QR image: plain codes, phone screenshots where the code is small (PNG, JPEG, WebP,
 * GIF, dark mode), Google Authenticator exports, and images without a readable otpauth code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as OTPAuth from 'otpauth';
import type { TestApp } from '../helpers/app.js';
import { current, startTotpApp, UUID_RE } from './helpers.js';
import { migrationUri, noQr, qrPng, screenshot, upload } from './qr-fixtures.js';

const T0 = Date.parse('2026-05-15T02:46:12.345Z');
const SECRET = 'JBSWY3DPEHPK3PXP';
const URI = `otpauth://totp/ACME:alice%40example.com?secret=${SECRET}&issuer=ACME&algorithm=SHA256&digits=8&period=60`;
const WANT = OTPAuth.TOTP.generate({
  secret: OTPAuth.Secret.fromBase32(SECRET),
  algorithm: 'SHA256',
  digits: 8,
  period: 60,
  timestamp: T0,
});

async function post(app: TestApp, image: Buffer, contentType?: string) {
  const { payload, contentType: ct } = upload(image, contentType);
  const res = await app.inject({
    method: 'POST',
    url: '/2FA/TOTP/',
    payload,
    headers: { 'content-type': ct },
  });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

async function assertRegistered(app: TestApp, image: Buffer, label: string, contentType?: string) {
  const r = await post(app, image, contentType);
  assert.equal(r.status, 200, `${label}: ${JSON.stringify(r.body)}`);
  // The image's issuer and account come back, so that a page can label the code by them.
  assert.deepEqual(Object.keys(r.body), ['id', 'otp', 'expiresAt', 'issuer', 'name'], label);
  assert.equal(r.body.issuer, 'ACME', label);
  assert.equal(r.body.name, 'alice@example.com', label);
  assert.match(r.body.id, UUID_RE);
  assert.equal(r.body.otp, WANT, label);
  assert.equal(r.body.expiresAt, '2026-05-15T02:47:00.000Z', label);
  const g = await current(app, r.body.id);
  assert.equal(g.body.otp, WANT, label);
}

void test('a plain QR code PNG registers its otpauth://totp URI', async () => {
  const app = await startTotpApp({}, { now: () => T0 });
  try {
    await assertRegistered(app, await qrPng(URI), 'plain png');
  } finally {
    await app.stop();
  }
});

void test('a phone screenshot with a small QR code among noise: PNG, JPEG, WebP, GIF', async () => {
  const app = await startTotpApp({}, { now: () => T0 });
  try {
    await assertRegistered(app, await screenshot(URI), 'screenshot png');
    await assertRegistered(app, await screenshot(URI, { format: 'jpeg' }), 'screenshot jpeg', 'image/jpeg');
    await assertRegistered(app, await screenshot(URI, { format: 'webp' }), 'screenshot webp', 'image/webp');
    await assertRegistered(app, await screenshot(URI, { format: 'gif' }), 'screenshot gif', 'image/gif');
  } finally {
    await app.stop();
  }
});

void test('a dark-mode screenshot (light modules on a dark ground)', async () => {
  const app = await startTotpApp({}, { now: () => T0 });
  try {
    await assertRegistered(app, await screenshot(URI, { dark: true, qrWidth: 300 }), 'dark mode');
  } finally {
    await app.stop();
  }
});

void test('a Google Authenticator export registers every TOTP account and answers them in data', async () => {
  const app = await startTotpApp({}, { now: () => T0 });
  try {
    const a = Buffer.from('12345678901234567890');
    const b = Buffer.from('abcdefghijklmnopqrstuvwxyz012345');
    const uri = migrationUri([
      { secret: a, name: 'alice@example.com', issuer: 'ACME', algorithm: 1, digits: 1 },
      { secret: Buffer.from('hotp-secret-0123'), name: 'counter', issuer: 'Bank', type: 1 },
      { secret: b, name: 'bob', issuer: 'Globex', algorithm: 2, digits: 2 },
    ]);
    const r = await post(app, await screenshot(uri, { qrWidth: 300 }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(Object.keys(r.body), ['data']);
    assert.equal(r.body.data.length, 2, 'the HOTP account is left out');
    const [first, second] = r.body.data;
    const code = (secret: Buffer, algorithm: string, digits: number, at = T0) =>
      OTPAuth.TOTP.generate({
        secret: new OTPAuth.Secret({ buffer: Uint8Array.from(secret).buffer }),
        algorithm,
        digits,
        timestamp: at,
      });
    assert.deepEqual(Object.keys(first), ['id', 'otp', 'expiresAt', 'issuer', 'name']);
    assert.equal(first.issuer, 'ACME');
    assert.equal(first.name, 'alice@example.com');
    assert.equal(first.otp, code(a, 'SHA1', 6));
    assert.equal(first.expiresAt, '2026-05-15T02:46:30.000Z');
    assert.equal(second.issuer, 'Globex');
    assert.equal(second.name, 'bob');
    assert.equal(second.otp, code(b, 'SHA256', 8));
    assert.notEqual(first.id, second.id);
    const later = '2031-07-01T12:00:00.000Z';
    assert.equal(
      (await current(app, first.id, `?at=${later}`)).body.otp,
      code(a, 'SHA1', 6, Date.parse(later)),
    );
    assert.equal(
      (await current(app, second.id, `?at=${later}`)).body.otp,
      code(b, 'SHA256', 8, Date.parse(later)),
    );
  } finally {
    await app.stop();
  }
});

void test('an image with no QR code is 422 qr_unreadable', async () => {
  const app = await startTotpApp();
  try {
    const r = await post(app, await noQr());
    assert.equal(r.status, 422);
    assert.equal(r.body.error.code, 'qr_unreadable');
    assert.equal(r.headers['access-control-allow-origin'], '*');
  } finally {
    await app.stop();
  }
});

void test('a QR code that holds no otpauth URI is 422 qr_unreadable, saying so', async () => {
  const app = await startTotpApp();
  try {
    const r = await post(app, await qrPng('https://example.com/welcome'));
    assert.equal(r.status, 422);
    assert.equal(r.body.error.code, 'qr_unreadable');
    assert.match(r.body.error.message, /otpauth/);
  } finally {
    await app.stop();
  }
});

void test('a QR code with an HOTP or invalid otpauth URI is 400, reported under /qrcode', async () => {
  const app = await startTotpApp();
  try {
    for (const [text, message] of [
      [`otpauth://hotp/ACME:a?secret=${SECRET}&counter=3`, /HOTP/],
      ['otpauth://totp/ACME:a?secret=11111111', /base32/],
      [migrationUri([{ secret: Buffer.from('x'.repeat(16)), name: 'h', type: 1 }]), /no time-based/],
      [migrationUri([{ secret: Buffer.from('x'.repeat(16)), name: 'm', algorithm: 4 }]), /no time-based/],
    ] as const) {
      const r = await post(app, await qrPng(text));
      assert.equal(r.status, 400, text);
      assert.equal(r.body.error.code, 'validation_error');
      assert.match(r.body.error.message, message);
      assert.equal(r.body.error.details[0].path, '/qrcode');
    }
  } finally {
    await app.stop();
  }
});

void test('the same exports work as a JSON uri', async () => {
  const app = await startTotpApp({}, { now: () => T0 });
  try {
    const res = await app.inject({
      method: 'POST',
      url: '/2FA/TOTP/',
      payload: {
        uri: migrationUri([{ secret: Buffer.from('12345678901234567890'), name: 'a', issuer: 'X' }]),
      },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.length, 1);
    assert.equal(
      res.json().data[0].otp,
      OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromLatin1('12345678901234567890'), timestamp: T0 }),
    );
  } finally {
    await app.stop();
  }
});
