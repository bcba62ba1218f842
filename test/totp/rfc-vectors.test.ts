/**
 * The published test vectors: RFC 6238 Appendix B (TOTP, 8 digits, 30 s, three algorithms, each
 * with its own seed) and RFC 4226 Appendix D (HOTP values, reached as TOTP steps: counter c is the
 * step starting at c × 30 s).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as OTPAuth from 'otpauth';
import { codeAt } from '../../src/totp/codes.js';
import { base32, current, register, startTotpApp } from './helpers.js';

const SEED = '1234567890';
const SEEDS = {
  SHA1: Buffer.from(SEED.repeat(2), 'ascii'), // 20 bytes
  SHA256: Buffer.from(SEED.repeat(4).slice(0, 32), 'ascii'), // 32 bytes
  SHA512: Buffer.from(SEED.repeat(7).slice(0, 64), 'ascii'), // 64 bytes
} as const;

// RFC 6238 Appendix B: [unix time, SHA1, SHA256, SHA512].
const RFC6238: [number, string, string, string][] = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

// RFC 4226 Appendix D: HOTP of the 20-byte seed for counters 0..9.
const RFC4226 = [
  '755224',
  '287082',
  '359152',
  '969429',
  '338314',
  '254676',
  '287922',
  '162583',
  '399871',
  '520489',
];

void test('the seeds have the lengths of RFC 6238', () => {
  assert.equal(SEEDS.SHA1.length, 20);
  assert.equal(SEEDS.SHA256.length, 32);
  assert.equal(SEEDS.SHA512.length, 64);
  assert.equal(
    SEEDS.SHA512.toString('ascii'),
    '1234567890123456789012345678901234567890123456789012345678901234',
  );
});

void test('RFC 6238 Appendix B through the API (?at=, 8 digits)', async () => {
  const app = await startTotpApp();
  try {
    const ids: Record<string, string> = {};
    for (const algorithm of ['SHA1', 'SHA256', 'SHA512'] as const) {
      const r = await register(app, { secret: base32(SEEDS[algorithm]), algorithm, digits: 8 });
      assert.equal(r.status, 200);
      ids[algorithm] = r.body.id;
    }
    for (const [t, sha1, sha256, sha512] of RFC6238) {
      const at = new Date(t * 1000).toISOString();
      const stepEnd = new Date((Math.floor(t / 30) + 1) * 30_000).toISOString();
      for (const [algorithm, want] of [
        ['SHA1', sha1],
        ['SHA256', sha256],
        ['SHA512', sha512],
      ] as const) {
        const g = await current(app, ids[algorithm]!, `?at=${at}`);
        assert.equal(g.status, 200);
        assert.equal(g.body.otp, want, `${algorithm} at ${t}`);
        assert.equal(g.body.expiresAt, stepEnd, `${algorithm} at ${t}`);
      }
    }
  } finally {
    await app.stop();
  }
});

void test('RFC 6238 Appendix B through codeAt', () => {
  for (const [t, ...codes] of RFC6238) {
    (['SHA1', 'SHA256', 'SHA512'] as const).forEach((algorithm, i) => {
      const c = codeAt({ secret: SEEDS[algorithm], algorithm, digits: 8, period: 30 }, t * 1000);
      assert.equal(c.otp, codes[i], `${algorithm} at ${t}`);
    });
  }
});

void test('RFC 4226 Appendix D through the library at the counter level', () => {
  const secret = new OTPAuth.Secret({ buffer: Uint8Array.from(SEEDS.SHA1).buffer });
  RFC4226.forEach((want, counter) => {
    assert.equal(
      OTPAuth.HOTP.generate({ secret, algorithm: 'SHA1', digits: 6, counter }),
      want,
      `counter ${counter}`,
    );
  });
});

void test('RFC 4226 Appendix D through the API: counter c is the step at c × period', async () => {
  const app = await startTotpApp();
  try {
    const r = await register(app, { secret: base32(SEEDS.SHA1), period: 30, digits: 6 });
    for (const [counter, want] of RFC4226.entries()) {
      // Any instant inside the step gives the step's code.
      for (const offset of [0, 29_999]) {
        const at = new Date(counter * 30_000 + offset).toISOString();
        const g = await current(app, r.body.id, `?at=${at}`);
        assert.equal(g.body.otp, want, `counter ${counter} +${offset}`);
        assert.equal(g.body.expiresAt, new Date((counter + 1) * 30_000).toISOString());
      }
    }
  } finally {
    await app.stop();
  }
});
