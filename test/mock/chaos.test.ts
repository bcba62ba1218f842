/**
 * The endpoint settings `chaos` and `faults` (issue 37): a seeded chaos hits exactly the requests its
 * generator says (a count known in advance, repeated after each settings change), an unseeded one
 * about its percentage; its delay is waited and recorded; guards' refusals are never hit; `faults.proxy`
 * breaks every proxied answer after the upstream was asked; null clears; GET shows the defaults.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { ALLOW_LOOPBACK, startApp, type TestApp } from '../helpers/app.js';
import { assertError, call, createEndpoint } from '../helpers/api-helpers.js';
import { seededRandom } from '../../src/mock/index.js';

let app: TestApp;
before(async () => {
  app = await startApp(ALLOW_LOOPBACK, { listen: true });
});
after(async () => {
  await app.stop();
});

const settings = (ep: string, body: unknown) => call(app, 'PATCH', `/endpoints/${ep}/settings`, body);

/** Sends `n` requests one after the other; which of them failed (by index). */
async function failures(ep: string, n: number, path = '/x'): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    try {
      const r = await request(`${app.url}/e/${ep}${path}`);
      await r.body.text();
    } catch {
      out.push(i);
    }
  }
  return out;
}

void test('GET shows faults and chaos at their defaults; PATCH merges them and null clears a field', async () => {
  await createEndpoint(app, 'chaos-settings');
  let r = await call(app, 'GET', '/endpoints/chaos-settings/settings');
  assert.deepEqual(r.body.faults, {});
  assert.deepEqual(r.body.chaos, { percent: 0 });
  r = await settings('chaos-settings', {
    chaos: { percent: 12.5, fault: 'timeout', seed: 9, delay: { distribution: 'uniform', min: 1, max: 5 } },
    faults: { proxy: 'connection_reset' },
  });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.chaos, {
    percent: 12.5,
    fault: 'timeout',
    seed: 9,
    delay: { distribution: 'uniform', min: 1, max: 5 },
  });
  r = await settings('chaos-settings', { chaos: { seed: null, fault: null }, faults: { tunnel: 'timeout' } });
  assert.deepEqual(r.body.chaos, { percent: 12.5, delay: { distribution: 'uniform', min: 1, max: 5 } });
  assert.deepEqual(r.body.faults, { proxy: 'connection_reset', tunnel: 'timeout' });
  for (const bad of [
    { chaos: { percent: 101 } },
    { chaos: { percent: -1 } },
    { chaos: { seed: 2 ** 32 } },
    { chaos: { seed: 1.5 } },
    { chaos: { fault: 'explode' } },
    { faults: { echo: 'timeout' } },
  ])
    assertError(await settings('chaos-settings', bad), 400, 'validation_error');
  // The bounds themselves are taken.
  assert.equal(
    (await settings('chaos-settings', { chaos: { percent: 100, seed: 2 ** 32 - 1 } })).status,
    200,
  );
  assert.equal((await settings('chaos-settings', { chaos: { percent: 0, seed: 0 } })).status, 200);
});

void test('a seeded chaos hits exactly the requests its generator picks, and again after a settings change', async () => {
  await createEndpoint(app, 'chaos-seeded');
  const chaos = { percent: 30, fault: 'empty_response', seed: 1234 };
  await settings('chaos-seeded', { chaos });
  const random = seededRandom(1234);
  const expected = Array.from({ length: 100 }, (_, i) => i).filter(() => random() * 100 < 30);
  const first = await failures('chaos-seeded', 100);
  assert.deepEqual(first, expected);
  assert.ok(first.length >= 20 && first.length <= 40, `${first.length} of 100`);
  // The same settings saved again: a new generator from the same seed, the same run.
  await settings('chaos-seeded', { chaos });
  assert.deepEqual(await failures('chaos-seeded', 100), expected);
  await app.ctx.history.flush();
  const { data } = await app.ctx.store.listHistory('chaos-seeded', {}, 100);
  const faulted = data.filter((e) => e.problems.some((p) => p.startsWith('fault: empty_response (')));
  assert.equal(faulted.length, expected.length);
  assert.ok(faulted.every((e) => e.behavior === 'default'));
});

void test('an unseeded chaos hits about its percentage; 0 and 100 hit none and all', async () => {
  await createEndpoint(app, 'chaos-free');
  await settings('chaos-free', { chaos: { percent: 50, fault: 'connection_reset' } });
  const half = (await failures('chaos-free', 200)).length;
  // Binomial(200, 0.5): ±40 is more than five standard deviations.
  assert.ok(half > 60 && half < 140, `${half} of 200`);
  await settings('chaos-free', { chaos: { percent: 0 } });
  assert.equal((await failures('chaos-free', 20)).length, 0);
  await settings('chaos-free', { chaos: { percent: 100 } });
  assert.equal((await failures('chaos-free', 20)).length, 20);
});

void test('a chaos delay is waited before the answer and recorded; guards are never hit', async () => {
  await createEndpoint(app, 'chaos-slow');
  await settings('chaos-slow', { chaos: { percent: 100, delay: { distribution: 'fixed', value: 300 } } });
  const started = performance.now();
  const r = await request(`${app.url}/e/chaos-slow/x`);
  assert.equal(r.statusCode, 200);
  await r.body.text();
  assert.ok(performance.now() - started >= 290, `${performance.now() - started} ms`);
  await app.ctx.history.flush();
  const e = (await app.ctx.store.listHistory('chaos-slow', {}, 1)).data[0]!;
  assert.ok(e.problems.includes('chaos: delayed 300 ms'), e.problems.join());
  // The security header's refusal is the endpoint's own answer: no fault, no delay.
  await settings('chaos-slow', {
    chaos: { percent: 100, fault: 'connection_reset' },
    security: { enabled: true, headerKey: 'x-key', headerValue: 'k' },
  });
  const refused = await request(`${app.url}/e/chaos-slow/x`);
  assert.equal(refused.statusCode, 562);
  await refused.body.text();
  await assert.rejects(request(`${app.url}/e/chaos-slow/x`, { headers: { 'x-key': 'k' } }), {
    code: 'ECONNRESET',
  });
});

void test('faults.proxy: the upstream is asked, the client gets the fault; null clears it', async () => {
  let asked = 0;
  const upstream: Server = createServer((_req, res) => {
    asked++;
    res.end('from upstream');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  try {
    const port = (upstream.address() as AddressInfo).port;
    await createEndpoint(app, 'proxy-faults');
    const r = await settings('proxy-faults', {
      proxy: { targetUrl: `http://127.0.0.1:${port}` },
      faults: { proxy: 'random_data_then_close' },
    });
    assert.equal(r.status, 200, r.text);
    await assert.rejects(request(`${app.url}/e/proxy-faults/p`), { name: 'HTTPParserError' });
    assert.equal(asked, 1);
    await app.ctx.history.flush();
    const e = (await app.ctx.store.listHistory('proxy-faults', {}, 1)).data[0]!;
    assert.equal(e.behavior, 'proxy');
    assert.equal(e.responseBody, '');
    assert.ok(e.problems.some((p) => p.startsWith('fault: random_data_then_close (')));
    assert.match(e.problems.join(), /faults\.proxy/);
    await settings('proxy-faults', { faults: { proxy: null } });
    const ok = await request(`${app.url}/e/proxy-faults/p`);
    assert.equal(await ok.body.text(), 'from upstream');
    assert.equal(asked, 2);
  } finally {
    await new Promise((resolve) => upstream.close(resolve));
  }
});
