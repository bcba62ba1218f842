/**
 * SIGTERM: the server stops accepting, finishes in-flight requests, flushes the history and exits 0;
 * requests answered just before the signal are in the history after a restart. Also: the admin key
 * is generated and printed at the first start only.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/index.js';
import { serveCli } from '../helpers/cli.js';

it('requests answered before SIGTERM are in the history after restart', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mb-shutdown-'));
  const first = await serveCli({ DATA_DIR: dir });
  t.after(() => first.child.kill('SIGKILL'));
  const printed = /Admin API key \(shown once[^)]*\): (mb_\S+)/.exec(first.stdout());
  assert.ok(printed, 'first start prints the generated admin key');
  const n = 40;
  const answers = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      fetch(`http://127.0.0.1:${first.port}/e/echo/before-sigterm/${i}`, {
        method: 'POST',
        body: `n=${i}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    ),
  );
  assert.ok(answers.every((r) => r.status === 200));
  await Promise.all(answers.map((r) => r.arrayBuffer()));
  first.child.kill('SIGTERM');
  assert.equal(await first.exited, 0);

  const second = await serveCli({ DATA_DIR: dir });
  t.after(() => second.child.kill('SIGKILL'));
  assert.doesNotMatch(second.stdout(), /Admin API key/, 'the key is printed once only');
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0);

  const store = await openSqliteStore(join(dir, 'mockingbird.db'));
  try {
    assert.equal(await store.countHistory('echo', { path: { substring: '/before-sigterm/' } }), n);
    // The key is stored hashed: its clear text is nowhere in the database file.
    assert.ok(!readFileSync(join(dir, 'mockingbird.db')).includes(printed[1]!));
  } finally {
    await store.close();
  }
});
