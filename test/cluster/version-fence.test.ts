/**
 * The version fence (src/cluster/version-fence.ts) against a Redis of the test's own and one store:
 * versions are read from Redis, put back from the store when Redis lost them, read from the store
 * when Redis does not answer, and an announce that cannot reach Redis suspends the fence, so that an
 * instance that still reaches Redis reads the store instead of the version Redis lacks (a partial
 * outage), until the versions are copied back. Fences here poll fast (tens of ms), so that the
 * suspension's wait is short.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  DependencyStatus,
  DOMAINS_VERSION_KEY,
  ENDPOINT_VERSION_KEY,
  RedisLink,
  SUSPENSION_KEY,
  VersionFence,
} from '../../src/cluster/index.js';
import { openSqliteStore, type KyselyStore } from '../../src/store/index.js';
import { suiteOrSkip } from '../helpers/pg.js';
import { freePort, redisServerSkip, startRedisServer, type TestRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

const FAST = { pollMs: 20, trustMs: 80, suspendMs: 300, retryDelayMs: 10 };

suiteOrSkip('the version fence', redisServerSkip, () => {
  let redis: TestRedis;
  let store: KyselyStore;
  let dir: string;
  const links: RedisLink[] = [];
  const fences: VersionFence[] = [];

  before(async () => {
    redis = await startRedisServer();
    dir = mkdtempSync(join(tmpdir(), 'mb-fence-'));
    store = await openSqliteStore(join(dir, 'db.sqlite'));
  });
  after(async () => {
    for (const f of fences) await f.stop();
    for (const l of links) await l.close();
    await store.close();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A fence on a link to `url` (the test's Redis unless given), trusted once its first poll is in. */
  async function fence(url = redis.url, status = new DependencyStatus()) {
    const link = new RedisLink(url, { commandTimeout: 300 });
    links.push(link);
    if (url === redis.url) await link.ready();
    const f = new VersionFence(link, store, status, FAST);
    fences.push(f);
    f.start();
    await until(() => f.trusted || url !== redis.url, 2000, 'the fence never trusted Redis');
    return { f, status };
  }

  async function change(name: string): Promise<number> {
    const w = await store.changeEndpoint(name, (tx) => tx.updateEndpointSettings(name, { n: Math.random() }));
    return w.version!;
  }

  async function endpoint(name: string): Promise<number> {
    const w = await store.changeEndpoint(name, (tx) =>
      tx.createEndpoint({ name, createdAt: 0, settings: {} }),
    );
    return w.version!;
  }

  test('an announced version is read from Redis; a lower one never replaces it', async () => {
    const { f, status } = await fence();
    await endpoint('shop');
    const v = await change('shop');
    await f.announce('shop', v);
    assert.equal(await redis.client().get(ENDPOINT_VERSION_KEY + 'shop'), String(v));
    await f.announce('shop', v - 1);
    assert.equal(await f.endpoint('shop'), v);
    await f.announce('shop', undefined, 7);
    assert.equal(await f.domains(), 7);
    assert.equal(status.get('config_versions')?.state, 'up');
  });

  test('a key Redis lost is read from the store and put back; an unknown endpoint is null', async () => {
    const { f } = await fence();
    const v = await endpoint('lost');
    assert.equal(await redis.client().get(ENDPOINT_VERSION_KEY + 'lost'), null);
    assert.equal(await f.endpoint('lost'), v);
    await until(async () => (await redis.client().get(ENDPOINT_VERSION_KEY + 'lost')) === String(v));
    assert.equal(await f.endpoint('no-such-endpoint'), null);
    assert.equal(await redis.client().exists(ENDPOINT_VERSION_KEY + 'no-such-endpoint'), 0);
  });

  test('with Redis unreachable, versions come from the store and the status says degraded', async () => {
    const status = new DependencyStatus();
    const port = await freePort(); // nothing listens there
    const link = new RedisLink(`redis://127.0.0.1:${port}/0`, { commandTimeout: 300 });
    links.push(link);
    const f = new VersionFence(link, store, status, FAST);
    fences.push(f);
    f.start();
    await until(() => f.trusted, 2000);
    const v = await endpoint('offline');
    assert.equal(await f.endpoint('offline'), v);
    assert.equal(status.get('config_versions')?.state, 'degraded');
    assert.match(status.get('config_versions')?.detail ?? '', /PostgreSQL/);
  });

  test('a partial outage: an announce that cannot reach Redis makes the others read the store, then Redis is filled again', async () => {
    const { f: b } = await fence();
    await endpoint('split');
    const old = await change('split');
    await b.announce('split', old);
    assert.equal(await b.endpoint('split'), old);

    // A cannot reach Redis; B can, and Redis still holds the old version.
    const unreachable = new RedisLink(`redis://127.0.0.1:${await freePort()}/0`, { commandTimeout: 300 });
    links.push(unreachable);
    const a = new VersionFence(unreachable, store, new DependencyStatus(), FAST);
    fences.push(a);
    a.start();
    const fresh = await change('split');
    await a.announce('split', fresh); // resolves once no instance trusts Redis
    assert.ok(await store.getMeta(SUSPENSION_KEY), 'the suspension is in the store');
    assert.equal(await redis.client().get(ENDPOINT_VERSION_KEY + 'split'), String(old), 'Redis lacks it');
    assert.equal(b.trusted, false);
    assert.equal(await b.endpoint('split'), fresh, 'B reads the store, not the version Redis lacks');

    // Once the marker's time is over, B copies every version into Redis and removes the marker.
    await until(async () => (await store.getMeta(SUSPENSION_KEY)) === undefined, 3000, 'never resynced');
    assert.equal(await redis.client().get(ENDPOINT_VERSION_KEY + 'split'), String(fresh));
    assert.ok(Number(await redis.client().get(DOMAINS_VERSION_KEY)) >= (await store.getDomainsVersion()));
    await until(() => b.trusted, 2000, 'B never trusted Redis again');
    assert.equal(await b.endpoint('split'), fresh);
  });
});
