/**
 * `mockingbird keys create|list|revoke` talk to the running server through its API, so the key made is
 * one that server answers to; without a server they refuse and create nothing; a database is written
 * directly only with an explicit --data-dir naming one that exists; every outcome names the server or
 * the database it used.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, serveCli, type Served } from '../helpers/cli.js';

const KEY = 'mb_test_key_keys_cmd_0123456789abcdef012';

describe('keys against a running server', () => {
  let server: Served;
  let dataDir: string;
  let url: string;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mb-keys-'));
    server = await serveCli({ DATA_DIR: dataDir, MOCKINGBIRD_API_KEY: KEY });
    url = `http://127.0.0.1:${server.port}`;
  });
  after(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });
  const api = (path: string, key: string, init: RequestInit = {}) =>
    fetch(url + '/api/v2' + path, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });

  it('create prints a key the server accepts, and says which server made it', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'mb-keys-cwd-'));
    try {
      const r = await runCli(['keys', 'create', '--server', url], { MOCKINGBIRD_API_KEY: KEY }, 20_000, cwd);
      assert.equal(r.code, 0, r.stderr);
      const key = r.stdout.trim();
      assert.match(key, /^mb_[A-Za-z0-9_-]{32,}$/);
      assert.match(
        r.stderr,
        new RegExp(`Created an admin key \\(id [0-9a-f-]+\\) in the server at ${url}\\.`),
      );
      assert.equal((await api('/endpoints', key)).status, 200, 'the server answers to the new key');
      assert.deepEqual(readdirSync(cwd), [], 'nothing written where the command ran');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('create --endpoint scopes the key; an unknown endpoint is the server refusing it', async () => {
    assert.equal((await api('/endpoints', KEY, { method: 'POST', body: '{"name":"shop"}' })).status, 201);
    const ok = await runCli(['keys', 'create', '--endpoint', 'shop', '--server', url, '--api-key', KEY]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stderr, /a key for endpoint "shop"/);
    const scoped = ok.stdout.trim();
    assert.equal((await api('/endpoints/shop', scoped)).status, 200);
    assert.equal((await api('/endpoints', scoped, { method: 'POST', body: '{"name":"x"}' })).status, 403);
    const missing = await runCli(['keys', 'create', '--endpoint', 'nope', '--server', url, '--api-key', KEY]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /answered 404: Endpoint "nope" does not exist/);
  });

  it('list shows ids and scopes, revoke removes one, the last admin key is kept', async () => {
    const made = await runCli(['keys', 'create', '--server', url, '--api-key', KEY]);
    const id = /\(id ([0-9a-f-]+)\)/.exec(made.stderr)![1]!;
    const list = await runCli(['keys', 'list', '--server', url, '--api-key', KEY]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`^${id}  admin  \\d{4}-`, 'm'));
    assert.match(list.stdout, /endpoint shop/);
    assert.match(list.stderr, new RegExp(`\\d+ keys in the server at ${url}`));
    const revoked = await runCli(['keys', 'revoke', id, '--server', url, '--api-key', KEY]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stderr, new RegExp(`Revoked key ${id} in the server at`));
    const again = await runCli(['keys', 'list', '--server', url, '--api-key', KEY]);
    assert.doesNotMatch(again.stdout, new RegExp(id));
    const unknown = await runCli(['keys', 'revoke', id, '--server', url, '--api-key', KEY]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /answered 404/);
  });

  it('a wrong admin key is the server refusing it, not a new database', async () => {
    const r = await runCli([
      'keys',
      'create',
      '--server',
      url,
      '--api-key',
      'mb_wrong_key_0123456789abcdef0123456789ab',
    ]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^mockingbird: the server at .* answered 401/);
    assert.equal(r.stdout, '');
  });
});

describe('keys without a server', () => {
  it('refuses when no server answers, and creates nothing where it ran', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'mb-keys-none-'));
    try {
      const r = await runCli(
        ['keys', 'create', '--server', 'http://127.0.0.1:9'],
        { MOCKINGBIRD_API_KEY: KEY },
        20_000,
        cwd,
      );
      assert.equal(r.code, 2);
      assert.equal(r.stdout, '');
      assert.match(
        r.stderr,
        /^mockingbird: no Mockingbird server answers at http:\/\/127\.0\.0\.1:9 .*mockingbird serve.*--data-dir/,
      );
      assert.deepEqual(readdirSync(cwd), []);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('refuses without an admin key, naming both ways to give one', async () => {
    const r = await runCli(['keys', 'list']);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /needs an admin key of the server at http:\/\/localhost:8080: --api-key KEY or MOCKINGBIRD_API_KEY/,
    );
  });

  it('--data-dir refuses a folder without a database and creates none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mb-keys-empty-'));
    try {
      const r = await runCli(['keys', 'create', '--data-dir', dir]);
      assert.equal(r.code, 2);
      assert.match(
        r.stderr,
        /no database at .*mockingbird\.db: --data-dir names the folder a server already uses/,
      );
      assert.deepEqual(readdirSync(dir), []);
      const typo = join(dir, 'not-there');
      assert.equal((await runCli(['keys', 'create', '--data-dir', typo])).code, 2);
      assert.equal(existsSync(typo), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--data-dir writes an existing database, and a server started on it accepts the key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mb-keys-db-'));
    try {
      const first = await serveCli({ DATA_DIR: dir, MOCKINGBIRD_API_KEY: KEY });
      first.child.kill('SIGTERM');
      assert.equal(await first.exited, 0);
      const r = await runCli(['keys', 'create', '--data-dir', dir]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(`in the database ${join(dir, 'mockingbird.db').replace(/[.]/g, '\\.')}\\.`),
      );
      const missing = await runCli(['keys', 'create', '--endpoint', 'shop', '--data-dir', dir]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /endpoint "shop" does not exist/);
      const echo = await runCli(['keys', 'create', '--endpoint', 'echo', '--data-dir', dir]);
      assert.equal(echo.code, 0, echo.stderr);
      const list = await runCli(['keys', 'list', '--data-dir', dir]);
      assert.match(list.stdout, /endpoint echo/);
      const second = await serveCli({ DATA_DIR: dir });
      try {
        const res = await fetch(`http://127.0.0.1:${second.port}/api/v2/endpoints`, {
          headers: { authorization: `Bearer ${r.stdout.trim()}` },
        });
        assert.equal(res.status, 200);
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
