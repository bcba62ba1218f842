import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as OTPAuth from 'otpauth';
import { ISO_MS_RE, UUID_RE, current, register, startTotpApp } from './helpers.js';

const SECRET = 'JBSWY3DPEHPK3PXP';
const T0 = Date.parse('2026-05-15T02:46:12.345Z');

function expected(
  secret: string,
  at: number,
  opts: { algorithm?: string; digits?: number; period?: number } = {},
) {
  return OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret), timestamp: at, ...opts });
}

void test('POST registers a secret and answers id, otp and expiresAt of the current step', async () => {
  const app = await startTotpApp({}, { now: () => T0 });
  try {
    const r = await register(app, { issuer: 'ACME', secret: SECRET, algorithm: 'SHA1' });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body), ['id', 'otp', 'expiresAt']);
    assert.match(r.body.id, UUID_RE);
    assert.equal(r.body.otp, expected(SECRET, T0));
    assert.equal(r.body.expiresAt, '2026-05-15T02:46:30.000Z');
    assert.match(r.body.expiresAt, ISO_MS_RE);
    assert.equal(r.headers['content-type'], 'application/json; charset=utf-8');

    const g = await current(app, r.body.id);
    assert.equal(g.status, 200);
    assert.deepEqual(g.body, { id: r.body.id, otp: r.body.otp, expiresAt: r.body.expiresAt });
  } finally {
    await app.stop();
  }
});

void test('each registration gets its own random UUID', async () => {
  const app = await startTotpApp();
  try {
    const a = await register(app, { secret: SECRET });
    const b = await register(app, { secret: SECRET });
    assert.notEqual(a.body.id, b.body.id);
  } finally {
    await app.stop();
  }
});

void test('defaults are SHA1, 6 digits, 30 seconds; issuer and algorithm are optional', async () => {
  const app = await startTotpApp({}, { now: () => T0 });
  try {
    const r = await register(app, { secret: SECRET });
    assert.equal(r.status, 200);
    assert.equal(r.body.otp, expected(SECRET, T0, { algorithm: 'SHA1', digits: 6, period: 30 }));
    assert.equal(r.body.otp.length, 6);
    // null reads as "not given".
    const n = await register(app, {
      secret: SECRET,
      issuer: null,
      algorithm: null,
      digits: null,
      period: null,
    });
    assert.equal(n.status, 200);
    assert.equal(n.body.otp, r.body.otp);
  } finally {
    await app.stop();
  }
});

void test('the secret is case-insensitive and ignores spaces and = padding; the algorithm is case-insensitive', async () => {
  const app = await startTotpApp({}, { now: () => T0 });
  try {
    const base = await register(app, { secret: 'GEZDGNBVGY3TQOJQ', algorithm: 'SHA256' });
    for (const secret of ['gezd gnbv gy3t qojq', 'GEZDGNBVGY3TQOJQ====', ' gEzDgNbVgY3tQoJq\t']) {
      const r = await register(app, { secret, algorithm: 'sha256' });
      assert.equal(r.status, 200, secret);
      assert.equal(r.body.otp, base.body.otp, secret);
    }
  } finally {
    await app.stop();
  }
});

void test('digits and period extensions change the code and the step end', async () => {
  const app = await startTotpApp({}, { now: () => T0 });
  try {
    const r = await register(app, { secret: SECRET, algorithm: 'SHA512', digits: 10, period: 60 });
    assert.equal(r.status, 200);
    assert.equal(r.body.otp.length, 10);
    assert.equal(r.body.otp, expected(SECRET, T0, { algorithm: 'SHA512', digits: 10, period: 60 }));
    assert.equal(r.body.expiresAt, '2026-05-15T02:47:00.000Z');
    const g = await current(app, r.body.id);
    assert.equal(g.body.otp, r.body.otp);
  } finally {
    await app.stop();
  }
});

void test('the limits of digits (6..10) and period (15..300) are accepted', async () => {
  const app = await startTotpApp({}, { now: () => T0 });
  try {
    for (const [digits, period] of [
      [6, 15],
      [10, 300],
      [7, 16],
      [9, 299],
    ] as const) {
      const r = await register(app, { secret: SECRET, digits, period });
      assert.equal(r.status, 200, `${digits}/${period}`);
      assert.equal(r.body.otp, expected(SECRET, T0, { digits, period }));
      const step = Math.floor(T0 / 1000 / period);
      assert.equal(r.body.expiresAt, new Date((step + 1) * period * 1000).toISOString());
    }
  } finally {
    await app.stop();
  }
});

void test('an otpauth://totp URI carries secret, algorithm, digits and period', async () => {
  const app = await startTotpApp({}, { now: () => T0 });
  try {
    const uri = `otpauth://totp/ACME:alice%40example.com?secret=${SECRET.toLowerCase()}&issuer=ACME&algorithm=SHA256&digits=8&period=45`;
    const r = await register(app, { uri });
    assert.equal(r.status, 200);
    assert.equal(r.body.otp, expected(SECRET, T0, { algorithm: 'SHA256', digits: 8, period: 45 }));
    const step = Math.floor(T0 / 1000 / 45);
    assert.equal(r.body.expiresAt, new Date((step + 1) * 45 * 1000).toISOString());
    const withIssuer = await register(app, { uri, issuer: 'Other' });
    assert.equal(withIssuer.status, 200);
  } finally {
    await app.stop();
  }
});

void test('leading zeros are kept', async () => {
  const app = await startTotpApp();
  try {
    const r = await register(app, { secret: SECRET });
    // Find an instant whose code starts with 0, then ask for it.
    let at = 0;
    while (!expected(SECRET, at * 30_000).startsWith('0')) at++;
    const g = await current(app, r.body.id, `?at=${new Date(at * 30_000).toISOString()}`);
    assert.equal(g.status, 200);
    assert.equal(g.body.otp, expected(SECRET, at * 30_000));
    assert.match(g.body.otp, /^0\d{5}$/);
  } finally {
    await app.stop();
  }
});

void test('?at= gives the code of that instant, on GET and on POST', async () => {
  const app = await startTotpApp();
  try {
    const at = '2030-01-02T03:04:05.678Z';
    const r = await register(app, { secret: SECRET }, `/2FA/TOTP/?at=${at}`);
    assert.equal(r.body.otp, expected(SECRET, Date.parse(at)));
    assert.equal(r.body.expiresAt, '2030-01-02T03:04:30.000Z');
    for (const q of [at, '2030-01-02T03:04:05Z', '2030-01-02T05:04:05+02:00', '2030-01-02T03:04:05']) {
      const g = await current(app, r.body.id, `?at=${encodeURIComponent(q)}`);
      assert.equal(g.status, 200, q);
      assert.equal(g.body.otp, expected(SECRET, Date.parse(at)), q);
      assert.equal(g.body.expiresAt, '2030-01-02T03:04:30.000Z', q);
    }
  } finally {
    await app.stop();
  }
});

void test('paths with and without trailing slash; tools.<domain> and the bare domain', async () => {
  const app = await startTotpApp();
  try {
    const a = await register(app, { secret: SECRET }, '/2FA/TOTP');
    assert.equal(a.status, 200);
    assert.equal((await current(app, a.body.id, '/')).status, 200);
    for (const host of ['tools.localhost', 'tools.localhost:8080', 'localhost']) {
      const p = await app.inject({
        method: 'POST',
        url: '/2FA/TOTP/',
        headers: { host },
        payload: { secret: SECRET },
      });
      assert.equal(p.statusCode, 200, host);
      const g = await app.inject({
        method: 'GET',
        url: `/2FA/TOTP/${p.json().id}`,
        headers: { host },
      });
      assert.equal(g.statusCode, 200, host);
    }
  } finally {
    await app.stop();
  }
});

void test('an uppercase id finds the same secret', async () => {
  const app = await startTotpApp();
  try {
    const r = await register(app, { secret: SECRET });
    const g = await current(app, r.body.id.toUpperCase());
    assert.equal(g.status, 200);
    assert.equal(g.body.id, r.body.id);
  } finally {
    await app.stop();
  }
});
