/** The lifetime of a secret: each use refreshes it; unused for totpRetentionDays, it is purged (then 404). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { purgeUnusedTotp } from '../../src/totp/index.js';
import { startPurgeJob } from '../../src/totp/jobs.js';
import { current, register, startTotpApp } from './helpers.js';

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const SECRET = 'JBSWY3DPEHPK3PXP';

void test('a secret unused for 90 days is kept at exactly 90 days and purged 1 ms later; GET then answers 404', async () => {
  let clock = T0;
  const app = await startTotpApp({}, { now: () => clock });
  try {
    const r = await register(app, { secret: SECRET });
    assert.equal((await app.ctx.store.getTotp(r.body.id))?.lastUsedAt, T0);

    clock = T0 + 10 * DAY;
    assert.equal((await current(app, r.body.id)).status, 200);
    assert.equal((await app.ctx.store.getTotp(r.body.id))?.lastUsedAt, clock, 'GET refreshes the last use');

    for (const [offset, removed] of [
      [90 * DAY - 1, 0],
      [90 * DAY, 0],
      [90 * DAY + 1, 1],
    ] as const) {
      clock = T0 + 10 * DAY + offset;
      assert.equal(await purgeUnusedTotp(app.ctx), removed, `after ${offset} ms`);
    }
    const g = await current(app, r.body.id);
    assert.equal(g.status, 404);
    assert.equal(g.body.error.code, 'not_found');
  } finally {
    await app.stop();
  }
});

void test('?at= in the past still counts as a use now', async () => {
  let clock = T0;
  const app = await startTotpApp({}, { now: () => clock });
  try {
    const r = await register(app, { secret: SECRET });
    clock = T0 + 89 * DAY;
    assert.equal((await current(app, r.body.id, '?at=2001-01-01T00:00:00Z')).status, 200);
    clock = T0 + 100 * DAY;
    assert.equal(await purgeUnusedTotp(app.ctx), 0);
    assert.equal((await current(app, r.body.id)).status, 200);
  } finally {
    await app.stop();
  }
});

void test('the retention is configurable (totpRetentionDays) and only stale secrets go', async () => {
  let clock = T0;
  const app = await startTotpApp({ totpRetentionDays: 1 }, { now: () => clock });
  try {
    const old = await register(app, { secret: SECRET });
    clock = T0 + DAY / 2;
    const fresh = await register(app, { secret: SECRET });
    clock = T0 + DAY + 1;
    assert.equal(await purgeUnusedTotp(app.ctx), 1);
    assert.equal((await current(app, old.body.id)).status, 404);
    assert.equal((await current(app, fresh.body.id)).status, 200);
  } finally {
    await app.stop();
  }
});

void test('the purge runs at start', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mockingbird-totp-purge-'));
  try {
    const first = await startTotpApp({ dataDir }, { now: () => T0 });
    const r = await register(first, { secret: SECRET });
    await first.stop();
    const later = await startTotpApp({ dataDir }, { now: () => T0 + 91 * DAY });
    try {
      const deadline = Date.now() + 5000;
      while ((await later.ctx.store.getTotp(r.body.id)) && Date.now() < deadline)
        await new Promise((res) => setTimeout(res, 20));
      assert.equal(await later.ctx.store.getTotp(r.body.id), undefined);
      assert.equal((await current(later, r.body.id)).status, 404);
    } finally {
      await later.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

void test('the purge runs again on its interval, and stops when asked', async () => {
  let clock = T0;
  const app = await startTotpApp({}, { now: () => clock });
  const stop = startPurgeJob(app.ctx, 25);
  try {
    const a = await register(app, { secret: SECRET });
    clock = T0 + 91 * DAY;
    const deadline = Date.now() + 5000;
    while ((await app.ctx.store.getTotp(a.body.id)) && Date.now() < deadline)
      await new Promise((res) => setTimeout(res, 10));
    assert.equal(await app.ctx.store.getTotp(a.body.id), undefined);

    stop();
    const b = await register(app, { secret: SECRET });
    clock = T0 + 182 * DAY + 1;
    await new Promise((res) => setTimeout(res, 150));
    assert.ok(await app.ctx.store.getTotp(b.body.id), 'no purge after stop');
  } finally {
    stop();
    await app.stop();
  }
});
