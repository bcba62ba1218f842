/** Reading otpauth:// and otpauth-migration:// URIs (unit level). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/errors.js';
import { MIGRATION_MAX_ACCOUNTS, parseImportUri } from '../../src/totp/import-uri.js';
import { migrationUri } from './qr-fixtures.js';

function single(uri: string) {
  const p = parseImportUri(uri, '/uri');
  assert.equal(p.kind, 'single');
  return p.kind === 'single' ? p.account : undefined!;
}

function rejects(uri: string, message: RegExp) {
  assert.throws(
    () => parseImportUri(uri, '/qrcode'),
    (err: unknown) =>
      err instanceof AppError &&
      err.code === 'validation_error' &&
      message.test(err.message) &&
      err.details?.[0]?.path === '/qrcode',
    uri.slice(0, 80),
  );
}

void test('otpauth://totp: defaults, label and issuer', () => {
  const a = single('otpauth://totp/alice?secret=JBSWY3DPEHPK3PXP');
  assert.deepEqual([a.algorithm, a.digits, a.period, a.issuer, a.name], ['SHA1', 6, 30, null, 'alice']);
  assert.equal(Buffer.from(a.secret).toString('hex'), '48656c6c6f21deadbeef');
  const b = single(
    'otpauth://totp/ACME%20Co:alice%40example.com?secret=jbsw%20y3dp%20ehpk%203pxp&algorithm=sha512&digits=8&period=60',
  );
  assert.deepEqual(
    [b.algorithm, b.digits, b.period, b.issuer, b.name],
    ['SHA512', 8, 60, 'ACME Co', 'alice@example.com'],
  );
  const c = single(
    'OTPAUTH://TOTP/Prefix:bob?secret=JBSWY3DPEHPK3PXP&issuer=Param&image=https%3A%2F%2Fx%2Fa.png',
  );
  assert.equal(
    c.issuer,
    'Param',
    'the issuer parameter wins over the label prefix; unknown parameters are ignored',
  );
});

void test('otpauth: every refusal names what is wrong', () => {
  rejects('otpauth://hotp/a?secret=JBSWY3DPEHPK3PXP&counter=0', /HOTP/);
  rejects('otpauth://totp/a', /no secret/);
  rejects('otpauth://totp/a?secret=', /empty/);
  rejects('otpauth://totp/a?secret=JBSWY3DPEHPK3PXP&digits=11', /digits/);
  rejects('otpauth://totp/a?secret=JBSWY3DPEHPK3PXP&digits=', /digits/);
  rejects('otpauth://totp/a?secret=JBSWY3DPEHPK3PXP&period=-30', /period/);
  rejects('otpauth://totp/a?secret=JBSWY3DPEHPK3PXP&algorithm=SHA384', /algorithm/);
  rejects('mailto:someone@example.com', /otpauth:\/\//);
  rejects('', /not valid/);
});

void test('otpauth-migration: every TOTP account, unspecified fields read as Google does', () => {
  const p = parseImportUri(
    migrationUri([
      { secret: Buffer.from('aaaaaaaaaa'), name: 'one', issuer: 'I1', algorithm: 0, digits: 0, type: 0 },
      { secret: Buffer.from('bbbbbbbbbb'), name: 'two', algorithm: 3, digits: 2 },
      { secret: Buffer.from('cccccccccc'), name: 'hotp', type: 1 },
      { secret: Buffer.from('dddddddddd'), name: 'md5', algorithm: 4 },
    ]),
    '/uri',
  );
  assert.equal(p.kind, 'migration');
  if (p.kind !== 'migration') return;
  assert.deepEqual(
    p.accounts.map((a) => [
      a.name,
      a.issuer,
      a.algorithm,
      a.digits,
      a.period,
      Buffer.from(a.secret).toString(),
    ]),
    [
      ['one', 'I1', 'SHA1', 6, 30, 'aaaaaaaaaa'],
      ['two', null, 'SHA512', 8, 30, 'bbbbbbbbbb'],
    ],
  );
});

void test('otpauth-migration: a "+" left raw in the data still decodes', () => {
  // Find a payload whose base64 has a '+', then send it unescaped.
  let uri = '';
  // Bytes FB EF BE are "++++" in base64 once aligned on a 3-byte boundary: shift them until they are.
  for (let k = 0; k < 3 && !uri.includes('%2B'); k++)
    uri = migrationUri([
      { secret: Buffer.from([...Array(k).fill(1), 0xfb, 0xef, 0xbe, 0xfb, 0xef, 0xbe, 7]), name: 'n' },
    ]);
  assert.ok(uri.includes('%2B'));
  const raw = uri.replace(/%2B/g, '+').replace(/%2F/g, '/').replace(/%3D/g, '=');
  assert.equal(parseImportUri(raw, '/uri').kind, 'migration');
});

void test(`otpauth-migration: ${MIGRATION_MAX_ACCOUNTS - 1} and ${MIGRATION_MAX_ACCOUNTS} accounts pass, ${MIGRATION_MAX_ACCOUNTS + 1} are refused`, () => {
  const make = (n: number) =>
    migrationUri(
      Array.from({ length: n }, (_, i) => ({ secret: Buffer.from(`s${i}`.padEnd(10, 'x')), name: 'a' })),
    );
  for (const n of [MIGRATION_MAX_ACCOUNTS - 1, MIGRATION_MAX_ACCOUNTS]) {
    const p = parseImportUri(make(n), '/uri');
    assert.equal(p.kind === 'migration' && p.accounts.length, n);
  }
  rejects(make(MIGRATION_MAX_ACCOUNTS + 1), new RegExp(`more than ${MIGRATION_MAX_ACCOUNTS}`));
});

void test('otpauth-migration: missing, non-base64 or non-protobuf data, and exports without TOTP accounts', () => {
  rejects('otpauth-migration://offline', /no data/);
  rejects('otpauth-migration://offline?data=', /no data/);
  rejects('otpauth-migration://offline?data=%%%%', /not valid base64/);
  rejects(
    'otpauth-migration://offline?data=' +
      encodeURIComponent(Buffer.from([0x0a, 0xff, 0xff, 0xff]).toString('base64')),
    /not a valid export/,
  );
  rejects(migrationUri([]), /no time-based/);
  rejects(migrationUri([{ secret: Buffer.alloc(0), name: 'empty' }]), /no time-based/);
});
