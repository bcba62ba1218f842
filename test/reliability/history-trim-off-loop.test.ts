/**
 * Stops: the per-endpoint history cap counting an endpoint (100,000 index entries by default) and
 * deleting its oldest entries on the thread that answers requests. An endpoint at its cap under load
 * was trimmed over and over, and each trim held every request (p99 of tens of milliseconds, a tenth
 * of the main thread's time in bench:echo). On SQLite the trim runs on the history worker's
 * connection: the main thread stays idle while it runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openSqliteStore } from '../../src/store/index.js';
import { entry } from '../helpers/history-fixtures.js';

test('SQLite: trimming an endpoint to its cap leaves the main thread idle', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mb-trim-'));
  const store = await openSqliteStore(join(dir, 'db.sqlite'));
  t.after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await store.createEndpoint({ name: 'busy', createdAt: 1, settings: {} });
  for (let b = 0; b < 40; b++)
    await store.insertHistory(
      Array.from({ length: 1000 }, (_, i) => entry('busy', { createdAt: b * 1000 + i + 1 })),
    );

  const before = performance.eventLoopUtilization();
  const r = await store.trimHistory('busy', { maxEntries: 5_000, maxBytes: 2 ** 50 });
  const elu = performance.eventLoopUtilization(before);

  assert.deepEqual([r.entries, r.deleted], [5_000, 35_000]);
  const left = await store.listHistory('busy', {}, 1);
  assert.equal(left.data[0]?.createdAt, 40_000, 'the newest entries are kept');
  // On the main connection the same trim kept the loop busy nearly all along (utilization ~0.9).
  assert.ok(
    elu.utilization < 0.3,
    `the main thread was busy ${(elu.utilization * 100).toFixed(0)} % of the ${elu.idle + elu.active} ms trim`,
  );
});
