/**
 * One instance per SQLite data folder (SPEC §8): a second `mockingbird serve` on a DATA_DIR in use
 * exits non-zero with one line naming the folder and what to do; a holder killed with SIGKILL leaves
 * nothing that blocks the next start.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, serveCli } from '../helpers/cli.js';

const KEY = 'mb_test_admin_key_0123456789abcdefghijklmnopqrstuv';

void test('a second instance on one data folder is refused; once the first is killed, a new start works', async () => {
  const dataDir = realpathSync(mkdtempSync(join(tmpdir(), 'mb-one-instance-')));
  const env = { DATA_DIR: dataDir, MOCKINGBIRD_API_KEY: KEY };
  try {
    const first = await serveCli(env);
    try {
      const second = await runCli(['serve', '--port', '0'], env);
      assert.equal(second.code, 2);
      const lines = second.stderr.trim().split('\n');
      assert.equal(lines.length, 1, second.stderr);
      assert.match(lines[0]!, /^mockingbird: the data folder .* is in use by another Mockingbird process/);
      assert.ok(lines[0]!.includes(dataDir), lines[0]);
      assert.ok(lines[0]!.includes(`pid ${first.child.pid}`), lines[0]);
      assert.match(lines[0]!, /DATABASE_URL \(PostgreSQL\) to run several instances/);
      assert.equal(second.stdout, '', 'nothing announced');
      assert.equal(
        (await fetch(`http://127.0.0.1:${first.port}/e/echo/still`)).status,
        200,
        'the first serves on',
      );
    } finally {
      first.child.kill('SIGKILL');
      await first.exited;
    }
    const next = await serveCli(env);
    try {
      assert.equal((await fetch(`http://127.0.0.1:${next.port}/e/echo/again`)).status, 200);
    } finally {
      next.child.kill('SIGTERM');
      assert.equal(await next.exited, 0);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
