/**
 * Custom domains: `customDomain: { enabled, domain }` makes requests whose Host is that domain reach the
 * endpoint (rules, history, everything), a domain has one owner (409), the claim survives a restart,
 * and what must not be claimed (the base domain's hosts, IP addresses) is refused.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomDomains } from '../../src/endpoint/index.js';
import { adminAuth, startApp, type TestApp } from '../helpers/app.js';
import { assertDetail, assertError, call, createEndpoint, scopedKey } from '../helpers/api-helpers.js';

let app: TestApp;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app.stop();
});

const get = (host: string, path = '/hello') => app.inject({ url: path, headers: { host } });

async function claim(ep: string, customDomain: unknown, key = adminAuth.authorization) {
  return call(app, 'PATCH', `/endpoints/${ep}/settings`, { customDomain }, key);
}

void describe('dispatch', () => {
  void test('a request to the claimed domain (any port, any case) reaches the endpoint and its history', async () => {
    await createEndpoint(app, 'shop');
    const r = await claim('shop', { enabled: true, domain: 'API.Example.com' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.customDomain, { enabled: true, domain: 'api.example.com' });

    const rule = await call(app, 'POST', '/endpoints/shop/rules', {
      method: 'GET',
      conditions: [{ type: 'path', operator: 'equals', value: '/hello' }],
      action: { type: 'mock', status: 202, body: 'from shop' },
    });
    assert.equal(rule.status, 201, rule.text);
    for (const host of ['api.example.com', 'api.example.com:8443', 'API.EXAMPLE.COM.']) {
      const res = await get(host);
      assert.equal(res.statusCode, 202, host);
      assert.equal(res.body, 'from shop');
    }
    const other = await get('api.example.com', '/other');
    assert.match(other.body, /Mockingbird endpoint "shop"/);
    await app.ctx.history.flush();
    const list = await call(app, 'GET', '/endpoints/shop/requests?path=/hello');
    assert.equal(list.body.data.length, 3);
    assert.equal(list.body.data[0].rule.matched, true);
  });

  void test('another host is untouched: the bare domain still serves the API', async () => {
    await createEndpoint(app, 'other-host');
    assert.equal((await claim('other-host', { enabled: true, domain: 'mock.other.test' })).status, 200);
    const res = await app.inject({
      url: '/api/v2/endpoints',
      headers: { ...adminAuth, host: 'localhost' },
    });
    assert.equal(res.statusCode, 200);
    const elsewhere = await get('unclaimed.example.org');
    assert.equal(elsewhere.statusCode, 404);
  });

  void test('disabling, clearing or deleting gives the host back', async () => {
    await createEndpoint(app, 'temp');
    assert.equal((await claim('temp', { enabled: true, domain: 'temp.example.net' })).status, 200);
    assert.equal((await get('temp.example.net')).statusCode, 200);

    let r = await claim('temp', { enabled: false });
    assert.deepEqual(r.body.customDomain, { enabled: false, domain: 'temp.example.net' });
    assert.equal((await get('temp.example.net')).statusCode, 404);

    assert.equal((await claim('temp', { enabled: true })).status, 200);
    assert.equal((await get('temp.example.net')).statusCode, 200);
    r = await claim('temp', { enabled: false, domain: null });
    assert.deepEqual(r.body.customDomain, { enabled: false });
    assert.equal((await get('temp.example.net')).statusCode, 404);

    assert.equal((await claim('temp', { enabled: true, domain: 'temp.example.net' })).status, 200);
    assert.equal((await call(app, 'DELETE', '/endpoints/temp')).status, 200);
    assert.equal((await get('temp.example.net')).statusCode, 404);
  });
});

void describe('claims', () => {
  void test('a domain has one owner: 409, and the loser keeps its settings', async () => {
    await createEndpoint(app, 'first');
    await createEndpoint(app, 'second');
    assert.equal((await claim('first', { enabled: false, domain: 'owned.example.com' })).status, 200);
    const r = await claim('second', { enabled: true, domain: 'Owned.Example.com' });
    assertError(r, 409, 'conflict');
    assert.deepEqual((await call(app, 'GET', '/endpoints/second/settings')).body.customDomain, {
      enabled: false,
    });
    // Two claims at once: exactly one wins.
    await createEndpoint(app, 'third');
    const [a, b] = await Promise.all([
      claim('second', { enabled: true, domain: 'race.example.com' }),
      claim('third', { enabled: true, domain: 'race.example.com' }),
    ]);
    assert.deepEqual([a.status, b.status].sort(), [200, 409]);
  });

  void test('refused: the base domain and its hosts, IP addresses, bad names, enabled without a domain', async () => {
    await createEndpoint(app, 'refused');
    assertDetail(await claim('refused', { enabled: true, domain: 'localhost' }), '/customDomain/domain');
    assertDetail(await claim('refused', { enabled: true, domain: 'shop.localhost' }), '/customDomain/domain');
    assertDetail(await claim('refused', { enabled: true, domain: '127.0.0.1' }), '/customDomain/domain');
    assertDetail(
      await claim('refused', { enabled: true, domain: 'bad_name.example' }),
      '/customDomain/domain',
    );
    assertDetail(await claim('refused', { enabled: true, domain: '-x.example' }), '/customDomain/domain');
    assertDetail(await claim('refused', { enabled: true }), '/customDomain/domain');
    assertDetail(await claim('refused', { enabled: true, port: 1 }), '/customDomain/port');
    assert.deepEqual((await call(app, 'GET', '/endpoints/refused/settings')).body.customDomain, {
      enabled: false,
    });
  });

  void test('a key scoped to the endpoint cannot claim a domain (it would take every request to that host)', async () => {
    await createEndpoint(app, 'scoped');
    const key = await scopedKey(app, 'scoped');
    assertError(
      await claim('scoped', { enabled: true, domain: 'scoped.example.com' }, key),
      403,
      'forbidden',
    );
    const other = await call(app, 'PATCH', '/endpoints/scoped/settings', { locale: 'de' }, key);
    assert.equal(other.status, 200, 'other settings stay open to the scoped key');
  });
});

void test('the claim survives a restart', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mb-domain-'));
  try {
    const first = await startApp({ dataDir });
    await createEndpoint(first, 'kept');
    const r = await call(first, 'PATCH', '/endpoints/kept/settings', {
      customDomain: { enabled: true, domain: 'kept.example.com' },
    });
    assert.equal(r.status, 200, r.text);
    await first.stop();
    const second = await startApp({ dataDir });
    try {
      const res = await second.inject({ url: '/x', headers: { host: 'kept.example.com' } });
      assert.match(res.body, /Mockingbird endpoint "kept"/);
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

void test('CustomDomains: lookups by host, ports and IPv6 literals', () => {
  const d = new CustomDomains();
  assert.equal(d.lookup('a.example.com'), undefined);
  d.set('a', 'A.example.com.');
  assert.equal(d.lookup('a.example.com'), 'a');
  assert.equal(d.lookup('a.example.com:80'), 'a');
  assert.equal(d.lookup('[::1]:80'), undefined);
  assert.equal(d.lookup(undefined), undefined);
  d.set('a', 'b.example.com');
  assert.equal(d.lookup('a.example.com'), undefined, 'the old domain is released');
  assert.equal(d.lookup('b.example.com'), 'a');
  d.set('a', undefined);
  assert.equal(d.lookup('b.example.com'), undefined);
});
