/**
 * Stops: blobs without a quota (issue 30, item 3): 330 MB were stored on one endpoint in 4 s and nothing
 * stopped more. An upload that would take the endpoint's blobs past BLOB_QUOTA, or all endpoints' past
 * BLOB_QUOTA_TOTAL, is refused before it is written, 413 `payload_too_large` naming the quota; a blob
 * deleted gives its bytes back. Run on SQLite, and on PostgreSQL when DATABASE_URL is set.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Config } from '../../src/config.js';
import { adminAuth, startApp, type TestApp } from '../helpers/app.js';
import { freshPgDatabase, pgSkip } from '../helpers/pg.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';

const QUOTA = 4096;

function upload(app: TestApp, ep: string, size: number) {
  const boundary = 'mbquotaboundary';
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    Buffer.alloc(size, 0x61),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return app.inject({
    method: 'POST',
    url: `/api/v2/endpoints/${ep}/blobs`,
    headers: { ...adminAuth, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload,
  });
}

async function stored(app: TestApp, ep: string): Promise<number> {
  const list = await call(app, 'GET', `/endpoints/${ep}/blobs`);
  return (list.body.data as { size: number }[]).reduce((n, b) => n + b.size, 0);
}

async function withApp(overrides: Partial<Config>, fn: (app: TestApp) => Promise<void>): Promise<void> {
  const app = await startApp(overrides);
  try {
    await fn(app);
  } finally {
    await app.stop();
  }
}

async function endpointQuota(app: TestApp): Promise<void> {
  await createEndpoint(app, 'quota-a');
  await createEndpoint(app, 'quota-b');
  assert.equal((await upload(app, 'quota-a', 3000)).statusCode, 201);
  const below = await upload(app, 'quota-a', QUOTA - 1 - 3000);
  assert.equal(below.statusCode, 201, `limit − 1: ${below.body}`);
  const at = await upload(app, 'quota-a', 1);
  assert.equal(at.statusCode, 201, `limit: ${at.body}`);
  assert.equal(await stored(app, 'quota-a'), QUOTA);
  const over = await upload(app, 'quota-a', 1);
  assert.equal(over.statusCode, 413, 'limit + 1');
  assert.equal(over.json().error.code, 'payload_too_large');
  assert.match(over.json().error.message, /BLOB_QUOTA \(4096 bytes\)/);
  assert.equal(await stored(app, 'quota-a'), QUOTA, 'the refused blob was not written');
  assert.equal((await upload(app, 'quota-b', 2000)).statusCode, 201, 'another endpoint has its own quota');
  // A deleted blob gives its bytes back.
  const list = await call(app, 'GET', '/endpoints/quota-a/blobs');
  const first = (list.body.data as { blobPath: string }[])[0]!.blobPath;
  assert.equal((await call(app, 'DELETE', `/endpoints/quota-a/blobs/${first}`)).status, 200);
  assert.equal((await upload(app, 'quota-a', 3000)).statusCode, 201);
}

async function totalQuota(app: TestApp): Promise<void> {
  await createEndpoint(app, 'total-a');
  await createEndpoint(app, 'total-b');
  assert.equal((await upload(app, 'total-a', 3000)).statusCode, 201);
  const below = await upload(app, 'total-b', QUOTA - 1 - 3000);
  assert.equal(below.statusCode, 201, `limit − 1: ${below.body}`);
  const at = await upload(app, 'total-b', 1);
  assert.equal(at.statusCode, 201, `limit: ${at.body}`);
  const over = await upload(app, 'total-a', 1);
  assert.equal(over.statusCode, 413, 'limit + 1, from the other endpoint');
  assert.equal(over.json().error.code, 'payload_too_large');
  assert.match(over.json().error.message, /BLOB_QUOTA_TOTAL \(4096 bytes\)/);
  assert.equal((await stored(app, 'total-a')) + (await stored(app, 'total-b')), QUOTA);
}

const perEndpoint: Partial<Config> = { blobQuota: QUOTA, blobQuotaTotal: 1 << 30 };
const total: Partial<Config> = { blobQuota: 1 << 30, blobQuotaTotal: QUOTA };

void test('BLOB_QUOTA: an endpoint’s blobs at limit − 1 and limit are stored, limit + 1 is 413 and not written', () =>
  withApp(perEndpoint, endpointQuota));

void test('BLOB_QUOTA_TOTAL: all endpoints’ blobs at limit − 1 and limit are stored, limit + 1 is 413', () =>
  withApp(total, totalQuota));

for (const [name, overrides, fn] of [
  ['BLOB_QUOTA', perEndpoint, endpointQuota],
  ['BLOB_QUOTA_TOTAL', total, totalQuota],
] as const)
  void test(`PostgreSQL: ${name} at limit − 1, limit, limit + 1`, { skip: pgSkip }, async () => {
    const db = await freshPgDatabase();
    try {
      await withApp({ ...overrides, databaseUrl: db.url }, fn);
    } finally {
      await db.drop();
    }
  });
