/**
 * Async callouts (SPEC §4, §12): the rule's own response answers at once; the callout reaches its
 * target afterwards, within `delay.min`..`delay.max`; the entry is recorded `pending` and updated with
 * the callout's outcome. Bounded: CALLOUT_QUEUE_PER_ENDPOINT (and CALLOUT_QUEUE) waiting, and shutdown
 * cancels those still waiting instead of hanging on them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { call } from '../helpers/api-helpers.js';
import { send, upstream } from '../proxy/proxy-helpers.js';
import { ALLOW_LOOPBACK, startApp } from '../helpers/app.js';
import { createEndpoint } from '../helpers/api-helpers.js';
import { openSqliteStore, sqliteFile } from '../../src/store/index.js';
import { calloutApp, calloutRule, entries, eventually } from './callout-helpers.js';

test('async: the rule answers at once; the callout arrives afterwards, within its delay window', async () => {
  const arrived: number[] = [];
  const up = await upstream((_req, res) => {
    arrived.push(Date.now());
    res.writeHead(200, { 'content-type': 'text/plain', 'x-target': 't' });
    res.end('target says hi');
  });
  const app = await calloutApp();
  try {
    await calloutRule(app, '/webhook', {
      behavior: 'async',
      status: 202,
      headers: [{ key: 'X-Own', value: 'mine' }],
      body: 'accepted',
      callout: {
        url: `${up.url}/cb`,
        method: 'POST',
        transform: 'custom',
        templated: true,
        body: `{"ref":"{{queryParam 'ref'}}"}`,
        // Long enough that the entry is read back before the callout leaves, on a loaded machine too
        // (1 s was not: a CI run under load read it back 3.6 s later, the callout done).
        delay: { min: 4000, max: 4500 },
        connectionId: 'conn-1',
      },
    });
    const res = await send(`${app.endpointUrl}/webhook?ref=r9`);
    const answered = Date.now();
    assert.equal(res.status, 202);
    assert.equal(res.text, 'accepted');
    assert.equal(res.headers['x-own'], 'mine');
    assert.equal(up.seen.length, 0, 'the callout has not arrived before the answer');

    const [pending] = await entries(app);
    assert.equal(pending?.behavior, 'callout');
    assert.equal(pending?.status, 202);
    assert.equal(pending?.responseBody, 'accepted');
    assert.equal(pending?.callout?.state, 'pending');
    assert.equal(pending?.callout?.connectionId, 'conn-1');

    await eventually(async () => (arrived.length > 0 ? true : undefined), 10_000);
    const after = arrived[0]! - answered;
    assert.ok(after >= 3950 && after <= 6000, `arrived ${after} ms after the answer`);
    assert.equal(up.seen[0]?.method, 'POST');
    assert.equal(up.seen[0]?.body.toString(), '{"ref":"r9"}');

    const done = await eventually(async () => {
      const [e] = await entries(app);
      return e?.callout?.state === 'done' ? e : undefined;
    });
    assert.equal(done.callout?.response?.status, 200);
    assert.equal(done.callout?.response?.body, 'target says hi');
    assert.equal(done.responseBody, 'accepted', "the entry's own answer is unchanged");
    const api = await call(app, 'GET', `/endpoints/shop/requests/${done.id}`);
    assert.equal(api.body.callout.state, 'done');
    assert.equal(api.body.callout.response.body, 'target says hi');
    assert.equal(api.body.callout.response.headers['x-target'], 't');
    assert.match(api.body.callout.sentAt, /^\d{4}-\d\d-\d\dT/);
  } finally {
    await app.stop();
    await up.close();
  }
});

test('async: an async callout whose target is down is recorded failed, the answer unaffected', async () => {
  const up = await upstream(() => undefined);
  await up.close();
  const app = await calloutApp();
  try {
    await calloutRule(app, '/down', { behavior: 'async', body: 'fine', callout: { url: `${up.url}/x` } });
    const res = await send(`${app.endpointUrl}/down`);
    assert.equal(res.status, 200);
    assert.equal(res.text, 'fine');
    const e = await eventually(async () => {
      const [x] = await entries(app);
      return x?.callout?.state === 'failed' ? x : undefined;
    });
    assert.match(e.callout?.error ?? '', /connection refused/);
  } finally {
    await app.stop();
  }
});

test('CALLOUT_QUEUE_PER_ENDPOINT: one more waiting callout than the bound is not sent, and says why', async () => {
  const up = await upstream((_req, res) => res.end());
  const app = await calloutApp({ calloutQueuePerEndpoint: 2 });
  try {
    await calloutRule(app, '/slow', {
      behavior: 'async',
      callout: { url: `${up.url}/s`, delay: { min: 60_000, max: 60_000 } },
    });
    for (let i = 0; i < 3; i++) assert.equal((await send(`${app.endpointUrl}/slow`)).status, 200);
    const all = await entries(app);
    const states = all.map((e) => e.callout?.state).sort();
    assert.deepEqual(states, ['cancelled', 'pending', 'pending']);
    const refused = all.find((e) => e.callout?.state === 'cancelled');
    assert.match(refused?.callout?.error ?? '', /CALLOUT_QUEUE_PER_ENDPOINT/);
    assert.match(refused?.problems.join(' ') ?? '', /CALLOUT_QUEUE_PER_ENDPOINT/);
    assert.equal(app.ctx.callouts.stats().waiting, 2);
  } finally {
    await app.stop();
    await up.close();
  }
});

test('CALLOUT_QUEUE: the whole server holds at most that many waiting callouts', async () => {
  const up = await upstream((_req, res) => res.end());
  const app = await calloutApp({ calloutQueue: 1 });
  try {
    await calloutRule(app, '/q', {
      behavior: 'async',
      callout: { url: `${up.url}/q`, delay: { min: 60_000, max: 60_000 } },
    });
    await send(`${app.endpointUrl}/q`);
    await send(`${app.endpointUrl}/q`);
    const states = (await entries(app)).map((e) => e.callout?.state).sort();
    assert.deepEqual(states, ['cancelled', 'pending']);
  } finally {
    await app.stop();
    await up.close();
  }
});

test('shutdown does not wait for callouts still in their delay: they are cancelled and recorded so', async () => {
  const up = await upstream((_req, res) => res.end());
  const app = await startApp(ALLOW_LOOPBACK, { listen: true, keepDir: true });
  try {
    await createEndpoint(app, 'shop');
    await calloutRule(app, '/later', {
      behavior: 'async',
      callout: { url: `${up.url}/l`, delay: { min: 60_000, max: 60_000 } },
    });
    await send(`${app.url}/e/shop/later`);
    const started = Date.now();
    await app.close();
    assert.ok(Date.now() - started < 3000, 'close did not wait for the delay');
    assert.equal(up.seen.length, 0, 'never sent');
    const store = await openSqliteStore(sqliteFile(app.dataDir));
    try {
      const [e] = (await store.listHistory('shop', {}, 10)).data;
      assert.equal(e?.callout?.state, 'cancelled');
      assert.match(e?.callout?.error ?? '', /shut down/);
    } finally {
      await store.close();
    }
  } finally {
    await up.close();
    rmSync(join(app.dataDir), { recursive: true, force: true });
  }
});
