/**
 * Secrets at rest: AES-256-GCM under SECRET_KEY or a generated key file (mode 0600). The SQLite files
 * never hold a secret in clear, the logs never show one, and a changed key is refused, not guessed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, childEnv } from '../helpers/cli.js';
import { KEY_FILE } from '../../src/totp/index.js';
import { SecretBox } from '../../src/secrets/index.js';
import { base32, current, register, startTotpApp } from './helpers.js';

/** Every byte SQLite wrote in `dir` (database, WAL and shared-memory files). */
function dbBytes(dir: string): Buffer {
  return Buffer.concat(
    readdirSync(dir)
      .filter((f) => f !== KEY_FILE)
      .map((f) => readFileSync(join(dir, f))),
  );
}

function assertAbsent(haystack: Buffer, secret: Buffer, label: string) {
  const b32 = base32(secret);
  for (const needle of [b32, b32.toLowerCase(), secret.toString('hex'), secret.toString('base64')])
    assert.equal(haystack.indexOf(needle), -1, `${label}: ${needle.slice(0, 8)}… found`);
  assert.equal(haystack.indexOf(secret), -1, `${label}: the raw secret bytes were found`);
}

void test('the SQLite files hold neither the base32 secret nor its bytes', async () => {
  const app = await startTotpApp();
  try {
    const secrets = [randomBytes(20), randomBytes(32), randomBytes(64)];
    const ids: string[] = [];
    for (const s of secrets) {
      const r = await register(app, { secret: base32(s), issuer: 'ACME' });
      assert.equal(r.status, 200);
      ids.push(r.body.id);
    }
    const uriSecret = randomBytes(20);
    assert.equal(
      (await register(app, { uri: `otpauth://totp/X:y?secret=${base32(uriSecret)}` })).status,
      200,
    );
    // The row is there (so the test reads the right files), sealed.
    const rec = await app.ctx.store.getTotp(ids[0]!);
    assert.ok(rec);
    assert.match(rec.secretEnc, /^v1\./);
    assert.ok(dbBytes(app.dataDir).includes(ids[0]!), 'the id is stored in the files read');
    const bytes = dbBytes(app.dataDir);
    for (const s of [...secrets, uriSecret]) assertAbsent(bytes, s, 'db files');
  } finally {
    await app.stop();
  }
});

void test('without SECRET_KEY a 32-byte key file is made with mode 0600 and reused at the next start', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mockingbird-totp-key-'));
  try {
    const first = await startTotpApp({ dataDir });
    const r = await register(first, { secret: 'JBSWY3DPEHPK3PXP' });
    await first.stop();
    const keyFile = join(dataDir, KEY_FILE);
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    const key = readFileSync(keyFile, 'utf8');
    assert.equal(Buffer.from(key.trim(), 'base64').length, 32);

    const second = await startTotpApp({ dataDir });
    try {
      const g = await current(second, r.body.id, '?at=2026-01-01T00:00:00Z');
      assert.equal(g.status, 200);
      assert.equal(readFileSync(keyFile, 'utf8'), key, 'the key file is not rewritten');
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

void test('a key file that does not hold a 32-byte key stops the start', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mockingbird-totp-key-'));
  try {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dataDir, KEY_FILE), 'c2hvcnQ=\n', { mode: 0o600 });
    await assert.rejects(startTotpApp({ dataDir }), /32-byte/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

void test('with SECRET_KEY no key file is made; another SECRET_KEY cannot read the secrets (500)', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mockingbird-totp-key-'));
  try {
    const a = await startTotpApp({ dataDir, secretKey: 'correct horse battery staple' });
    const r = await register(a, { secret: 'JBSWY3DPEHPK3PXP' });
    await a.stop();
    assert.throws(() => statSync(join(dataDir, KEY_FILE)), /ENOENT/);

    const same = await startTotpApp({ dataDir, secretKey: 'correct horse battery staple' });
    try {
      assert.equal((await current(same, r.body.id)).status, 200);
    } finally {
      await same.stop();
    }
    const other = await startTotpApp({ dataDir, secretKey: 'another key' });
    try {
      const g = await current(other, r.body.id);
      assert.equal(g.status, 500);
      assert.equal(g.body.error.code, 'internal_error');
      assert.doesNotMatch(JSON.stringify(g.body), /decrypt|SECRET_KEY|key/i);
    } finally {
      await other.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

void test('a sealed secret opens only under its own id (copied onto another row it fails)', async () => {
  const box = await SecretBox.fromConfig({ secretKey: 'k', dataDir: '/nonexistent' });
  const sealed = box.seal(Buffer.from('secret-bytes'), 'id-a');
  assert.equal(box.open(sealed, 'id-a').toString(), 'secret-bytes');
  assert.throws(() => box.open(sealed, 'id-b'));
  assert.throws(() => box.open('v2.abc', 'id-a'), /Unknown/);
  const raw = Buffer.from(sealed.slice(3), 'base64url');
  raw[raw.length - 1]! ^= 1;
  assert.throws(() => box.open('v1.' + raw.toString('base64url'), 'id-a'));
  assert.notEqual(
    box.seal(Buffer.from('x'), 'i'),
    box.seal(Buffer.from('x'), 'i'),
    'a fresh nonce each time',
  );
});

void test('the request log at trace level never shows the secret', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mockingbird-totp-log-'));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CLI, 'serve', '--port', '0', '--log-level', 'trace', '--data-dir', dataDir],
    { env: childEnv({ TOTP_RATE_LIMIT: '1000' }) },
  );
  const exited = new Promise((r) => child.once('exit', r));
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no listening line: ' + out)), 20_000);
      const poll = setInterval(() => {
        const m = /listening on https?:\/\/[^:]+:(\d+)/.exec(out);
        if (m) {
          clearInterval(poll);
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      }, 20);
    });
    const secret = randomBytes(20);
    const post = await fetch(`http://127.0.0.1:${port}/2FA/TOTP/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ secret: base32(secret), issuer: 'LogCheck' }),
    });
    const { id } = (await post.json()) as { id: string };
    assert.equal((await fetch(`http://127.0.0.1:${port}/2FA/TOTP/${id}`)).status, 200);
    await fetch(`http://127.0.0.1:${port}/2FA/TOTP/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ secret: base32(secret) + '!' }),
    });
    // The log is buffered: stop the server (which flushes it) before reading it.
    child.kill('SIGTERM');
    await exited;
    assert.match(out, /"url":"\/2FA\/TOTP\//, 'the request lines were captured');
    assertAbsent(Buffer.from(out), secret, 'log');
  } finally {
    child.kill('SIGKILL');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});
