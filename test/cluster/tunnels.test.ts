/**
 * Tunnels across instances (SPEC §8, issue 33 item 5): a tunnel client connected to instance A serves
 * its endpoint's requests sent to instance B, through one authenticated hop, streamed both ways; the
 * hop path refuses whoever lacks the instances' key and never forwards twice; the owner killed, stopped
 * or cut off from Redis leaves B answering from its fallback chain.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { startCluster, clusterSkip, type Cluster } from '../helpers/cluster.js';
import { suiteOrSkip } from '../helpers/pg.js';
import { until } from '../helpers/until.js';
import { startTarget, type Target } from '../tunnel/tunnel-helpers.js';
import { runTunnel, type TunnelHandle } from '../../src/tunnel/index.js';
import { leaseValue } from '../../src/tunnel/hop-wire.js';
import {
  headFrame,
  HOP_KEY_HEADER,
  HOP_SECRET_META,
  hopKeys,
  leaseKey,
  readHead,
} from '../../src/tunnel/index.js';

const MB = 1024 * 1024;
const BIG = 10 * MB;
const EP = 'tun';
const FALLBACK = 'the default answer';

/** Slice `i` of a deterministic 10 MB answer, written in 64 KiB slices as the socket takes them. */
const slice = (i: number): Buffer => Buffer.alloc(65536, createHash('sha512').update(`slice ${i}`).digest());
const SLICES = BIG / 65536;
const bigHash = (() => {
  const h = createHash('sha256');
  for (let i = 0; i < SLICES; i++) h.update(slice(i));
  return h.digest('hex');
})();

function writeBig(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(BIG) });
  let i = 0;
  const more = (): void => {
    while (i < SLICES) {
      const ok = res.write(slice(i++));
      if (!ok) return void res.once('drain', more);
    }
    res.end();
  };
  more();
}

suiteOrSkip('a tunnel client on one instance serves requests sent to another', clusterSkip, () => {
  let c: Cluster;
  let target: Target;
  let tunnel: TunnelHandle;
  let hopKey: string;
  /** Requests the target holds until the test lets them go. */
  const held: ServerResponse[] = [];

  const url = (i: number, path: string): string => `${c.instances[i]!.url}/e/${EP}${path}`;
  const api = async (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${c.instances[0]!.url}/api/v2${path}`, {
      method,
      headers: {
        authorization: c.key,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const lease = (): Promise<string | null> => c.redis.client().get(leaseKey(EP));

  before(async () => {
    c = await startCluster(2, {
      env: { BODY_LIMIT: String(16 * MB) },
      envOf: (_i, port) => ({ INSTANCE_URL: `http://127.0.0.1:${port}` }),
    });
    target = await startTarget((req, res, body) => {
      if (req.url === '/big') return writeBig(res);
      if (req.url === '/held') return void held.push(res);
      if (req.url === '/upload') return void res.end(createHash('sha256').update(body).digest('hex'));
      res.writeHead(201, [
        ['content-type', 'text/plain'],
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
        ['x-local', 'yes'],
      ]);
      res.end(`local saw ${req.method} ${req.url} ${body.toString()}`);
    });
    assert.equal((await api('POST', '/endpoints', { name: EP })).status, 201);
    const patched = await api('PATCH', `/endpoints/${EP}/settings`, {
      localTunnel: true,
      defaultResponse: { status: 203, body: FALLBACK },
    });
    assert.equal(patched.status, 200, await patched.text());
    tunnel = runTunnel({
      server: c.instances[0]!.url,
      endpoint: EP,
      apiKey: c.key,
      targetHost: '127.0.0.1',
      targetPort: target.port,
      out: () => undefined,
      err: () => undefined,
      minDelayMs: 100,
      maxDelayMs: 500,
    });
    await until(async () => (await lease()) !== null, 10_000, 'A wrote no lease for its tunnel client');
    const db = new pg.Client({ connectionString: c.databaseUrl });
    await db.connect();
    const row = await db.query<{ value: string }>('select value from meta where key = $1', [HOP_SECRET_META]);
    await db.end();
    hopKey = hopKeys(row.rows[0]!.value).hop;
  });
  after(async () => {
    for (const res of held) res.destroy();
    await tunnel?.stop();
    await target?.close();
    await c?.stop();
  });

  test('a request sent to B reaches the client on A: method, path, headers, body and status', async () => {
    const res = await fetch(url(1, '/orders?x=1'), {
      method: 'PUT',
      headers: { 'content-type': 'text/plain', 'x-custom': 'yes' },
      body: 'hello',
    });
    assert.equal(res.status, 201);
    assert.equal(await res.text(), 'local saw PUT /orders?x=1 hello');
    assert.equal(res.headers.get('x-local'), 'yes');
    assert.deepEqual(res.headers.getSetCookie(), ['a=1', 'b=2']);
    const seen = target.seen.at(-1)!;
    assert.equal(seen.headers['x-custom'], 'yes');
    assert.equal(seen.headers['x-forwarded-host'], `127.0.0.1:${c.instances[1]!.port}`, "B's Host");
    // Recorded once, by B, as the tunnel's.
    await until(
      async () => {
        const r = await api('GET', `/endpoints/${EP}/requests?path=orders`);
        return ((await r.json()) as { data: unknown[] }).data.length > 0;
      },
      5000,
      'the request was not recorded',
    );
    const list = (await (await api('GET', `/endpoints/${EP}/requests?path=orders`)).json()) as {
      data: { behavior: string; status: number }[];
    };
    assert.deepEqual(
      list.data.map((e) => [e.behavior, e.status]),
      [['tunnel', 201]],
    );
  });

  test('a 10 MB request body and a 10 MB answer cross the hop whole', async () => {
    const body = randomBytes(BIG);
    const up = await fetch(url(1, '/upload'), { method: 'POST', body });
    assert.equal(up.status, 200);
    assert.equal(await up.text(), createHash('sha256').update(body).digest('hex'));

    const down = await fetch(url(1, '/big'));
    assert.equal(down.status, 200);
    const h = createHash('sha256');
    let bytes = 0;
    for await (const chunk of down.body!) {
      h.update(chunk);
      bytes += chunk.length;
    }
    assert.equal(bytes, BIG);
    assert.equal(h.digest('hex'), bigHash);
  });

  test('the hop path refuses a request without the key (404), and a hop is never forwarded again', async () => {
    const hopUrl = (i: number): string => `${c.instances[i]!.url}/_mockingbird/hop/${EP}`;
    const head = { method: 'GET', path: '/x', headers: {}, ip: '203.0.113.1', protocol: 'http', host: 'h' };
    const refused: Record<string, string>[] = [
      {},
      { [HOP_KEY_HEADER]: 'not-the-key' },
      { [HOP_KEY_HEADER]: hopKey.slice(1) },
    ];
    for (const headers of refused) {
      const r = await fetch(hopUrl(0), { method: 'POST', headers, body: headFrame(head) });
      assert.equal(r.status, 404);
      assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'not_found');
    }
    const get = await fetch(hopUrl(0), { headers: { [HOP_KEY_HEADER]: hopKey } });
    assert.equal(get.status, 404, 'only POST');

    const bad = await fetch(hopUrl(0), {
      method: 'POST',
      headers: { [HOP_KEY_HEADER]: hopKey },
      body: headFrame({ method: 'GET', path: 'no-slash' }),
    });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { code: string } }).error.code, 'validation_error');

    // B holds no client and the lease names A: a hop to B is answered "none here", not sent on to A.
    const before = target.seen.length;
    const onB = await fetch(hopUrl(1), {
      method: 'POST',
      headers: { [HOP_KEY_HEADER]: hopKey },
      body: headFrame(head),
    });
    assert.equal(onB.status, 200);
    assert.deepEqual(await readHead(Readable.fromWeb(onB.body! as never)), { none: true });
    assert.equal(target.seen.length, before, 'the local service saw nothing');

    // The same hop to A reaches the client: the hop carries its own head.
    const onA = await fetch(hopUrl(0), {
      method: 'POST',
      headers: { [HOP_KEY_HEADER]: hopKey },
      body: headFrame(head),
    });
    const answered = await readHead(Readable.fromWeb(onA.body! as never));
    assert.equal(answered['status'], 201);
  });

  test('a lease not signed by an instance is ignored: no hop to the address it names', async () => {
    const trap = await startTarget((_req, res) => res.end('trapped'));
    try {
      assert.equal((await api('POST', '/endpoints', { name: 'forged' })).status, 201);
      const patched = await api('PATCH', '/endpoints/forged/settings', {
        localTunnel: true,
        defaultResponse: { status: 203, body: FALLBACK },
      });
      assert.equal(patched.status, 200);
      const owner = { instance: 'intruder', url: `http://127.0.0.1:${trap.port}` };
      await c.redis.client().set(leaseKey('forged'), leaseValue(hopKeys('a guess'), 'forged', owner));
      const r = await fetch(`${c.instances[1]!.url}/e/forged/x`);
      assert.equal(r.status, 203);
      assert.equal(await r.text(), FALLBACK);
      assert.equal(trap.seen.length, 0, 'nothing was sent to the address of the forged lease');
    } finally {
      await trap.close();
    }
  });

  test('Redis stopped: B answers from its fallback chain, A through its own client; both come back', async () => {
    await c.redis.stop();
    const onB = await fetch(url(1, '/r'));
    assert.equal(onB.status, 203);
    assert.equal(await onB.text(), FALLBACK);
    const onA = await fetch(url(0, '/r'));
    assert.equal(onA.status, 201);
    await c.redis.start();
    // A writes its lease again at its next renewal (within 5 s) into the empty Redis.
    await until(
      async () => (await fetch(url(1, '/r'))).status === 201,
      15_000,
      'B did not forward again after Redis came back',
    );
  });

  test('the owner killed: B answers from its fallback chain at once and drops the dead lease', async () => {
    const a = c.instances[0]!;
    await a.kill();
    assert.notEqual(await lease(), null, 'a killed owner released nothing');
    const started = Date.now();
    const r = await fetch(url(1, '/k'));
    assert.equal(r.status, 203);
    assert.equal(await r.text(), FALLBACK);
    assert.ok(Date.now() - started < 3000, 'within the lease time, not after it');
    assert.equal(await lease(), null, 'B deleted the lease of an owner it could not reach');
    await a.start();
    await until(async () => (await lease()) !== null, 15_000, 'the client did not come back to A');
    assert.equal((await fetch(url(1, '/k'))).status, 201);
  });

  test('the owner stopped with SIGTERM: its lease goes at once, its request in flight finishes', async () => {
    const a = c.instances[0]!;
    const inFlight = fetch(url(0, '/held'));
    await until(() => held.length === 1, 5000, 'the held request did not reach the local service');
    const exited = a.stop();
    await until(async () => (await lease()) === null, 2000, 'A did not release its lease on SIGTERM');
    const r = await fetch(url(1, '/t'));
    assert.equal(r.status, 203, 'B no longer forwards to a draining owner');
    held.pop()!.end('finished while draining');
    const answer = await inFlight;
    assert.equal(answer.status, 200);
    assert.equal(await answer.text(), 'finished while draining');
    assert.equal(await exited, 0);
  });
});
