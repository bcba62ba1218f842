/**
 * `mockingbird-server/testing`'s startMockingbird: a real server for a test run, ready when it returns
 * (the API answers its key), on its own port and data folder; stop() ends it and removes the folder.
 * A server that cannot start rejects with its own message, and leaves no process or folder behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockingbird } from '../../src/testing/index.js';

test(
  'startMockingbird answers a ready server with its URL, key and client; stop() ends it',
  { timeout: 60_000 },
  async () => {
    const before = new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('mockingbird-run-')));
    const mb = await startMockingbird();
    const made = readdirSync(tmpdir()).filter((n) => n.startsWith('mockingbird-run-') && !before.has(n));
    assert.equal(made.length, 1, 'one data folder of its own');
    try {
      assert.match(mb.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.match(mb.key, /^mb_[A-Za-z0-9_-]{43}$/);
      const shop = await mb.client.createEndpoint('shop');
      await shop.addRule({
        conditions: [{ type: 'path', operator: 'equals', value: '/ping' }],
        action: { type: 'mock', status: 200, body: 'pong' },
      });
      const r = await fetch(shop.url('/ping'));
      assert.equal(await r.text(), 'pong');
      assert.equal((await shop.waitForRequest({ path: '/ping' })).path, '/ping');
    } finally {
      await mb.stop();
    }
    await assert.rejects(fetch(`${mb.url}/e/echo/`), 'the server is gone');
    assert.equal(existsSync(join(tmpdir(), made[0]!)), false, 'its data folder is removed');
  },
);

test(
  'a given data folder and key are used, and the folder is kept; DATABASE_URL is not inherited',
  { timeout: 60_000 },
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mb-start-own-'));
    const key = 'mb_given_key_for_the_test_run_0123456789abc';
    // A developer's database in this process's environment: the test run's server keeps to its own folder.
    const saved = process.env['DATABASE_URL'];
    process.env['DATABASE_URL'] = 'postgres://nobody@127.0.0.1:9/not-this-one';
    t.after(() => {
      if (saved === undefined) delete process.env['DATABASE_URL'];
      else process.env['DATABASE_URL'] = saved;
    });
    try {
      const mb = await startMockingbird({
        dataDir,
        apiKey: key,
        config: 'examples/mockingbird.yaml',
        env: { PROXY_ALLOW: '127.0.0.0/8' },
      });
      try {
        assert.equal(mb.key, key);
        assert.ok(existsSync(join(dataDir, 'mockingbird.db')));
        const user = await fetch(`${mb.url}/e/users/users/42`);
        assert.equal(((await user.json()) as { id: string }).id, '42', 'the configuration file was loaded');
      } finally {
        await mb.stop();
      }
      assert.ok(existsSync(join(dataDir, 'mockingbird.db')), 'a folder it did not make is kept');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);

test(
  'a server that cannot start rejects with its message and leaves nothing behind',
  { timeout: 60_000 },
  async () => {
    const before = new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('mockingbird-run-')));
    await assert.rejects(startMockingbird({ env: { BODY_LIMIT: 'lots' } }), (err: unknown) => {
      assert.ok(err instanceof Error);
      assert.match(err.message, /exited with code 2/);
      assert.match(err.message, /BODY_LIMIT/);
      return true;
    });
    const left = readdirSync(tmpdir()).filter((n) => n.startsWith('mockingbird-run-') && !before.has(n));
    assert.deepEqual(left, []);
  },
);
