import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';

void test('a free endpoint answers 50 requests a day, then 429 quota_exceeded recorded as rejected', async () => {
  const app = await startApp({ defaultPlan: 'free' });
  try {
    await createEndpoint(app, 'thrifty');
    await createEndpoint(app, 'neighbour');
    for (let i = 1; i <= 49; i++)
      assert.equal((await app.inject({ url: `/e/thrifty/r${i}` })).statusCode, 200);
    // limit − 1 (49th) passed above; the limit (50th) passes; limit + 1 (51st) is refused
    assert.equal((await app.inject({ url: '/e/thrifty/r50' })).statusCode, 200);
    const over = await app.inject({ url: '/e/thrifty/r51', headers: { host: 'localhost' } });
    assert.equal(over.statusCode, 429);
    assert.match(String(over.headers['content-type']), /^application\/json/);
    assert.equal(JSON.parse(over.body).error.code, 'quota_exceeded');
    const retry = Number(over.headers['retry-after']);
    assert.ok(retry >= 1 && retry <= 86_400, `retry-after ${retry}`);
    assert.equal(over.headers['x-ratelimit-limit'], '50');
    // by host too, and the quota is per endpoint
    assert.equal((await app.inject({ url: '/x', headers: { host: 'thrifty.localhost' } })).statusCode, 429);
    assert.equal((await app.inject({ url: '/e/neighbour/x' })).statusCode, 200);

    await app.ctx.history.flush();
    const page = await app.ctx.store.listHistory('thrifty', {}, 100);
    assert.equal(page.data.length, 52);
    const rejected = page.data.filter((e) => e.behavior === 'rejected');
    assert.equal(rejected.length, 2);
    assert.ok(rejected.every((e) => e.status === 429 && e.responseBody.includes('quota_exceeded')));
    assert.equal(page.data.filter((e) => e.behavior === 'default').length, 50);

    // moving the endpoint to a plan without a quota lifts it
    await call(app, 'PATCH', '/endpoints/thrifty/settings', { plan: 'unlimited' });
    assert.equal((await app.inject({ url: '/e/thrifty/again' })).statusCode, 200);
  } finally {
    await app.stop();
  }
});

void test('the quota counts per UTC day: a new day starts a new count', async () => {
  let now = Date.parse('2030-01-01T23:59:00.000Z');
  const dir = mkdtempSync(join(tmpdir(), 'mockingbird-quota-'));
  const plansFile = join(dir, 'plans.json');
  writeFileSync(plansFile, JSON.stringify({ tiny: { requestsPerDay: 2 } }));
  const app = await startApp({ plansFile, defaultPlan: 'tiny' }, { now: () => now });
  try {
    await createEndpoint(app, 'daily');
    const status = async () => (await app.inject({ url: '/e/daily/' })).statusCode;
    assert.deepEqual([await status(), await status(), await status()], [200, 200, 429]);
    now = Date.parse('2030-01-02T00:00:01.000Z');
    assert.deepEqual([await status(), await status(), await status()], [200, 200, 429]);
  } finally {
    await app.stop();
  }
});

void test('mockingbird serve with a bad PLANS_FILE stops with one line and exit code 2', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mockingbird-plans-cli-'));
  const plansFile = join(dir, 'plans.yaml');
  writeFileSync(plansFile, 'team:\n  maxRules: many\n');
  const r = await runCli(['serve', '--port', '0', '--data-dir', dir, '--plans-file', plansFile]);
  assert.equal(r.code, 2);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /^mockingbird: PLANS_FILE .*plan "team": maxRules must be a whole number/);
  assert.doesNotMatch(r.stderr, /database/, 'a plans problem is not reported as a storage problem');
});
