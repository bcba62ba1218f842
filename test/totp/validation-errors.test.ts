/** Every 400 and 404 of the TOTP API, with the documented error body; a secret never comes back. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.js';
import { SECRET_MAX_BYTES } from '../../src/totp/codes.js';
import { URI_MAX_LENGTH } from '../../src/totp/import-uri.js';
import { ISSUER_MAX_LENGTH } from '../../src/totp/validate.js';
import { base32, current, register, startTotpApp } from './helpers.js';

const SECRET = 'JBSWY3DPEHPK3PXP';

async function expect400(app: TestApp, body: unknown, path?: string, url?: string) {
  const r = await register(app, body, url);
  assert.equal(r.status, 400, JSON.stringify(body).slice(0, 200));
  assert.equal(r.body.error.code, 'validation_error');
  assert.equal(typeof r.body.error.message, 'string');
  assert.equal(r.headers['access-control-allow-origin'], '*');
  if (path)
    assert.ok(
      r.body.error.details.some((d: { path: string }) => d.path === path),
      JSON.stringify(r.body),
    );
  return r;
}

void test('secret: missing, not a string, empty, not base32, too short', async () => {
  const app = await startTotpApp();
  try {
    await expect400(app, {}, '/secret');
    await expect400(app, { issuer: 'ACME' }, '/secret');
    await expect400(app, { secret: null }, '/secret');
    await expect400(app, { secret: 12345 }, '/secret');
    for (const secret of [
      '',
      '   ',
      '====',
      'A',
      'JBSWY3DPEHPK3PX1',
      'JBSWY3DP-EHPK3PXP',
      'JBSW=Y3DP',
      'ÄBCD',
    ]) {
      const r = await expect400(app, { secret }, '/secret');
      if (secret.trim().length > 3) assert.ok(!JSON.stringify(r.body).includes(secret), 'secret echoed back');
    }
  } finally {
    await app.stop();
  }
});

void test(`secret length: ${SECRET_MAX_BYTES - 1} and ${SECRET_MAX_BYTES} bytes pass, ${SECRET_MAX_BYTES + 1} is refused`, async () => {
  const app = await startTotpApp();
  try {
    for (const n of [SECRET_MAX_BYTES - 1, SECRET_MAX_BYTES]) {
      const r = await register(app, { secret: base32(Buffer.alloc(n, 7)) });
      assert.equal(r.status, 200, String(n));
    }
    await expect400(app, { secret: base32(Buffer.alloc(SECRET_MAX_BYTES + 1, 7)) }, '/secret');
  } finally {
    await app.stop();
  }
});

void test('algorithm: only SHA1, SHA256, SHA512', async () => {
  const app = await startTotpApp();
  try {
    for (const algorithm of ['MD5', 'SHA-256', 'SHA224', 'sha3-256', '', 256, true]) {
      const r = await expect400(app, { secret: SECRET, algorithm }, '/algorithm');
      assert.match(r.body.error.message, /SHA1, SHA256 or SHA512/);
    }
  } finally {
    await app.stop();
  }
});

void test('digits outside 6..10 and period outside 15..300, or not whole numbers', async () => {
  const app = await startTotpApp();
  try {
    for (const digits of [5, 11, 0, -6, 6.5, '6', [], {}])
      await expect400(app, { secret: SECRET, digits }, '/digits');
    for (const period of [14, 301, 0, 30.5, '30', true])
      await expect400(app, { secret: SECRET, period }, '/period');
  } finally {
    await app.stop();
  }
});

void test(`issuer: a string of at most ${ISSUER_MAX_LENGTH} characters`, async () => {
  const app = await startTotpApp();
  try {
    for (const n of [ISSUER_MAX_LENGTH - 1, ISSUER_MAX_LENGTH])
      assert.equal((await register(app, { secret: SECRET, issuer: 'x'.repeat(n) })).status, 200);
    await expect400(app, { secret: SECRET, issuer: 'x'.repeat(ISSUER_MAX_LENGTH + 1) }, '/issuer');
    await expect400(app, { secret: SECRET, issuer: 42 }, '/issuer');
    await expect400(app, { secret: SECRET, issuer: { a: 1 } }, '/issuer');
  } finally {
    await app.stop();
  }
});

void test('unknown fields are refused, every problem is listed', async () => {
  const app = await startTotpApp();
  try {
    await expect400(app, { secret: SECRET, label: 'x' }, '/label');
    const r = await expect400(app, { secret: 'bad!', algorithm: 'MD5', digits: 4 });
    assert.deepEqual(
      r.body.error.details.map((d: { path: string }) => d.path),
      ['/secret', '/algorithm', '/digits'],
    );
  } finally {
    await app.stop();
  }
});

void test('bodies that are not a JSON object, malformed JSON, and other content types', async () => {
  const app = await startTotpApp();
  try {
    for (const body of [[], 'JBSWY3DPEHPK3PXP', 42]) await expect400(app, body);
    const raw = async (payload: string | undefined, type?: string) => {
      const res = await app.inject({
        method: 'POST',
        url: '/2FA/TOTP/',
        ...(payload === undefined ? {} : { payload }),
        headers: type ? { 'content-type': type } : {},
      });
      assert.equal(res.statusCode, 400, `${type}: ${payload}`);
      assert.equal(res.json().error.code, 'validation_error');
      assert.equal(res.headers['access-control-allow-origin'], '*');
      return res.json<{ error: { message: string } }>();
    };
    await raw('null', 'application/json');
    await raw('{"secret":', 'application/json');
    await raw('', 'application/json');
    await raw(undefined);
    await raw('{"__proto__":{"x":1},"secret":"JBSWY3DPEHPK3PXP"}', 'application/json');
    const t = await raw(`secret=${SECRET}`, 'application/x-www-form-urlencoded');
    assert.match(t.error.message, /application\/json/);
    await raw(SECRET, 'text/plain');
    await raw(SECRET, 'application/octet-stream');
  } finally {
    await app.stop();
  }
});

void test('a JSON body over the body limit is 413 payload_too_large', async () => {
  const app = await startTotpApp({ bodyLimit: 4096 });
  try {
    const r = await register(app, { secret: SECRET, issuer: 'x'.repeat(5000) });
    assert.equal(r.status, 413);
    assert.equal(r.body.error.code, 'payload_too_large');
  } finally {
    await app.stop();
  }
});

void test('uri: not with secret, a string, a valid otpauth://totp URI', async () => {
  const app = await startTotpApp();
  try {
    const ok = `otpauth://totp/ACME:a?secret=${SECRET}`;
    await expect400(app, { uri: ok, secret: SECRET }, '/secret');
    await expect400(app, { uri: ok, digits: 6 }, '/digits');
    await expect400(app, { uri: 5 }, '/uri');
    const cases: [string, RegExp][] = [
      ['not a uri', /not valid/],
      ['https://example.com/?secret=JBSWY3DPEHPK3PXP', /otpauth:\/\//],
      [`otpauth://hotp/ACME:a?secret=${SECRET}&counter=1`, /HOTP/],
      [`otpauth://motp/ACME:a?secret=${SECRET}`, /Unknown OTP type/],
      ['otpauth://totp/ACME:a?issuer=ACME', /no secret/],
      ['otpauth://totp/ACME:a?secret=not-base32!', /base32/],
      [`otpauth://totp/ACME:a?secret=${SECRET}&algorithm=MD5`, /algorithm/],
      [`otpauth://totp/ACME:a?secret=${SECRET}&digits=5`, /digits/],
      [`otpauth://totp/ACME:a?secret=${SECRET}&digits=abc`, /digits/],
      [`otpauth://totp/ACME:a?secret=${SECRET}&period=14`, /period/],
      [`otpauth://totp/ACME:a?secret=${SECRET}&period=301`, /period/],
      [`otpauth://totp/%E0%A4%A?secret=${SECRET}`, /label/],
    ];
    for (const [uri, message] of cases) {
      const r = await expect400(app, { uri }, '/uri');
      assert.match(r.body.error.message, message, uri);
    }
  } finally {
    await app.stop();
  }
});

void test(`uri length: ${URI_MAX_LENGTH} characters pass, ${URI_MAX_LENGTH + 1} are refused`, async () => {
  const app = await startTotpApp();
  try {
    const make = (n: number) => {
      const tail = `?secret=${SECRET}`;
      const head = 'otpauth://totp/';
      return head + 'a'.repeat(n - head.length - tail.length) + tail;
    };
    for (const n of [URI_MAX_LENGTH - 1, URI_MAX_LENGTH]) {
      assert.equal(make(n).length, n);
      assert.equal((await register(app, { uri: make(n) })).status, 200, String(n));
    }
    await expect400(app, { uri: make(URI_MAX_LENGTH + 1) }, '/uri');
  } finally {
    await app.stop();
  }
});

void test('GET: an id that is not a UUID is 400, an unknown UUID is 404 not_found', async () => {
  const app = await startTotpApp();
  try {
    for (const id of [
      'abc',
      '123',
      'not-a-uuid',
      '2f1e9c4a-7b3d-4e8f-9a6b-1c2d3e4f5a6',
      '2f1e9c4a7b3d4e8f9a6b1c2d3e4f5a6b0',
    ]) {
      const g = await current(app, id);
      assert.equal(g.status, 400, id);
      assert.equal(g.body.error.code, 'validation_error');
      assert.equal(g.body.error.details[0].path, '/id');
      assert.equal(g.headers['access-control-allow-origin'], '*');
    }
    const g = await current(app, '2f1e9c4a-7b3d-4e8f-9a6b-1c2d3e4f5a6b');
    assert.equal(g.status, 404);
    assert.equal(g.body.error.code, 'not_found');
    assert.equal(g.headers['access-control-allow-origin'], '*');
  } finally {
    await app.stop();
  }
});

void test('query: unknown parameters and malformed ?at= are 400, on GET and POST', async () => {
  const app = await startTotpApp();
  try {
    const { body } = await register(app, { secret: SECRET });
    const bad = [
      '?foo=1',
      '?at=2026-01-01T00:00:00Z&x=1',
      '?at=yesterday',
      '?at=',
      '?at=2026-01-01',
      '?at=1700000000',
      '?at=2021-02-30T00:00:00Z',
      '?at=2021-01-01T24:00:00Z',
      '?at=2021-01-01T10:60:00Z',
      '?at=1969-12-31T23:59:59Z',
      '?at=2026-01-01T00:00:00Z&at=2026-01-01T00:00:00Z',
    ];
    for (const q of bad) {
      const g = await current(app, body.id, q);
      assert.equal(g.status, 400, q);
      assert.equal(g.body.error.code, 'validation_error', q);
    }
    await expect400(app, { secret: SECRET }, '/at', '/2FA/TOTP/?at=nope');
    await expect400(app, { secret: SECRET }, '/x', '/2FA/TOTP/?x=1');
  } finally {
    await app.stop();
  }
});

void test('GET /2FA/TOTP/ without an id is 400: the (empty) id is not a UUID', async () => {
  const app = await startTotpApp();
  try {
    for (const url of ['/2FA/TOTP/', '/2FA/TOTP//']) {
      const res = await app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 400, url);
      assert.equal(res.json().error.details[0].path, '/id');
    }
  } finally {
    await app.stop();
  }
});
