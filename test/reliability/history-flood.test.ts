/**
 * Stops: a flood of large bodies filling memory and the disk through the history (issue 11, item 1).
 * Each endpoint's stored history stays within HISTORY_MAX_BYTES and HISTORY_MAX_ENTRIES as entries
 * arrive (the hourly retention used to be the only bound), and every answered request is either
 * written or counted as dropped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp } from '../helpers/app.js';

const MB = 1024 * 1024;

/** Runs `count` tasks, `width` at a time. */
async function pool(count: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

test('a flood of large POSTs leaves the endpoint within HISTORY_MAX_BYTES, every answer written or counted', async () => {
  const app = await startApp({ historyMaxBytes: 4 * MB, historyQueueBytes: 8 * MB }, { listen: true });
  try {
    const body = Buffer.alloc(256 * 1024, 'a');
    let answered = 0;
    await pool(40, 8, async (i) => {
      const r = await fetch(`${app.url}/e/echo/flood/${i}`, { method: 'POST', body });
      await r.arrayBuffer();
      assert.equal(r.status, 200);
      answered++;
    });
    await app.ctx.history.flush();
    const usage = await app.ctx.store.trimHistory('echo', { maxEntries: 1e9, maxBytes: 2 ** 50 });
    // Each entry holds the body twice (the request, and the echo's answer): about 0.5 MB.
    assert.ok(usage.bytes <= 4 * MB, `stored ${usage.bytes} bytes`);
    assert.ok(usage.entries >= 4 && usage.entries <= 8, `kept ${usage.entries} entries`);
    const st = app.ctx.history.stats();
    assert.equal(st.written + st.dropped, answered, JSON.stringify(st));
    assert.equal(st.trimmed, st.written - usage.entries, 'the rest was trimmed, oldest first');
    const newest = await app.ctx.store.listHistory('echo', {}, 1);
    assert.ok(newest.data[0]?.path.startsWith('/flood/'));
  } finally {
    await app.stop();
  }
});

test('HISTORY_MAX_ENTRIES holds as entries arrive, keeping the newest', async () => {
  const app = await startApp({ historyMaxEntries: 10 }, { listen: true });
  try {
    for (let i = 0; i < 30; i++) {
      const r = await fetch(`${app.url}/e/echo/n/${i}`);
      await r.arrayBuffer();
    }
    await app.ctx.history.flush();
    const page = await app.ctx.store.listHistory('echo', {}, 100);
    assert.deepEqual(
      page.data.map((e) => e.path),
      Array.from({ length: 10 }, (_, i) => `/n/${29 - i}`),
    );
  } finally {
    await app.stop();
  }
});
