/**
 * Nothing lost: 20,000 echo requests at full load (50 kept-alive connections), the server stopped
 * with SIGTERM in the middle, started again on the same DATA_DIR: there is one history entry for
 * every 2xx answer the load generator saw (each request has its own path, so the check is exact),
 * and none for a request that was not answered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { serveCli } from '../helpers/cli.js';

const TOTAL = 20_000;
const CONNECTIONS = 50;
const KEY = 'mb_test_key_sigterm_0123456789abcdef01';

test('SIGTERM under load loses no answered request from the history', { timeout: 120_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mb-sigterm-'));
  const env = { DATA_DIR: dataDir, MOCKINGBIRD_API_KEY: KEY, ECHO_RATE_LIMIT: '10000000' };
  try {
    const first = await serveCli(env);
    const pool = new Pool(`http://127.0.0.1:${first.port}`, { connections: CONNECTIONS, pipelining: 1 });
    const answered: string[] = [];
    let failed = 0;
    let next = 0;
    let signalled = false;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < TOTAL) {
          const path = `/load/${next++}`;
          try {
            const r = await pool.request({ method: 'GET', path: `/e/echo${path}` });
            await r.body.dump();
            if (r.statusCode >= 200 && r.statusCode < 300) answered.push(path);
            else failed++;
          } catch {
            failed++; // the server is stopping: the connection is closed or refused
          }
          if (!signalled && answered.length >= TOTAL / 2) {
            signalled = true;
            first.child.kill('SIGTERM');
          }
        }
      }),
    );
    await pool.destroy();
    assert.equal(await first.exited, 0, 'a clean stop: every answered request written');
    assert.ok(signalled, 'the server was stopped in the middle of the load');
    assert.ok(answered.length >= TOTAL / 2 && answered.length < TOTAL, `answered ${answered.length}`);
    assert.equal(answered.length + failed, TOTAL);

    const second = await serveCli(env);
    try {
      const paths = new Set<string>();
      let cursor: string | undefined;
      do {
        const q = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) });
        const r = await fetch(
          `http://127.0.0.1:${second.port}/api/v2/endpoints/echo/requests?${q.toString()}`,
          {
            headers: { authorization: KEY },
          },
        );
        assert.equal(r.status, 200, await r.clone().text());
        const page = (await r.json()) as {
          data: { path: string }[];
          pagination: { cursor?: string; hasMore: boolean };
        };
        for (const e of page.data) paths.add(e.path);
        cursor = page.pagination.hasMore ? page.pagination.cursor : undefined;
      } while (cursor);
      const missing = answered.filter((p) => !paths.has(p));
      assert.deepEqual(
        missing.slice(0, 10),
        [],
        `${missing.length} answered requests missing from the history`,
      );
      assert.equal(paths.size, answered.length, 'one entry per answered request, and no other');
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
