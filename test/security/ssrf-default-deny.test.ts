/**
 * Stops: proxy and callout targets on loopback and private ranges allowed unless configured (a 10.0.0.1
 * target was sent), and a deny list without 100.64.0.0/10 (CGNAT) and 198.18.0.0/15 (benchmarking)
 * (issue 30, item 2). By default every range that is not the public internet is refused, each at its
 * first and last address while the addresses just outside stay public; PROXY_ALLOW opens a listed
 * range. Refusals are checked without traffic: the guard refuses before connecting, and no test here
 * sends a packet to anything but 127.0.0.1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AddressPolicy, OutboundClient, TargetRefused } from '../../src/outbound/index.js';
import { call } from '../helpers/api-helpers.js';
import { calloutApp, calloutRule } from '../callout/callout-helpers.js';
import { proxyApp, send, upstream } from '../proxy/proxy-helpers.js';

/** Each range denied by default, its first and last address, and the public neighbours just outside. */
const RANGES: { range: string; inside: string[]; outside: string[] }[] = [
  { range: '127.0.0.0/8', inside: ['127.0.0.1', '127.255.255.254', '::ffff:127.0.0.1'], outside: [] },
  { range: '::1/128', inside: ['::1', '[::1]'], outside: [] },
  { range: '10.0.0.0/8', inside: ['10.0.0.1', '10.255.255.255'], outside: ['9.255.255.255', '11.0.0.0'] },
  {
    range: '172.16.0.0/12',
    inside: ['172.16.0.0', '172.31.255.255'],
    outside: ['172.15.255.255', '172.32.0.0'],
  },
  {
    range: '192.168.0.0/16',
    inside: ['192.168.0.0', '192.168.255.255', '64:ff9b::c0a8:101'],
    outside: ['192.167.255.255', '192.169.0.0'],
  },
  { range: 'fc00::/7', inside: ['fc00::1', 'fdff:ffff::1'], outside: ['fbff:ffff::1', 'fe00::1'] },
  {
    range: '100.64.0.0/10',
    inside: ['100.64.0.0', '100.127.255.255'],
    outside: ['100.63.255.255', '100.128.0.0'],
  },
  {
    range: '198.18.0.0/15',
    inside: ['198.18.0.0', '198.19.255.255'],
    outside: ['198.17.255.255', '198.20.0.0'],
  },
  { range: '169.254.0.0/16', inside: ['169.254.0.1', '169.254.169.254'], outside: [] },
  { range: 'fe80::/10', inside: ['fe80::1', 'febf::1'], outside: [] },
];

test('each range is refused by default, at both ends; the addresses just outside are public', () => {
  const byDefault = new AddressPolicy();
  for (const { range, inside, outside } of RANGES) {
    for (const ip of inside) {
      const r = byDefault.check(ip);
      assert.ok(r, `${ip} (${range}) should be refused`);
      assert.equal(r.range, range, ip);
    }
    for (const ip of outside) assert.equal(byDefault.check(ip), undefined, `${ip} is outside ${range}`);
  }
});

test('each range is allowed when PROXY_ALLOW lists it; the metadata addresses inside stay denied', () => {
  for (const { range, inside } of RANGES) {
    const p = new AddressPolicy({ allow: [range] });
    for (const ip of inside) assert.equal(p.check(ip), undefined, `${ip} with PROXY_ALLOW=${range}`);
  }
  // More specific built-in entries win over a broad allow of their range.
  assert.ok(new AddressPolicy({ allow: ['100.64.0.0/10'] }).check('100.100.100.200'));
  assert.ok(new AddressPolicy({ allow: ['fc00::/7'] }).check('fd00:ec2::254'));
});

test('the guard resolves and checks without connecting: refused by default, allowed when listed', async () => {
  const closed = new OutboundClient({ timeout: 1000 });
  const open = new OutboundClient({ allow: RANGES.map((r) => r.range), timeout: 1000 });
  try {
    for (const ip of ['10.0.0.1', '100.64.0.1', '198.18.0.1', '172.16.0.1', '192.168.1.1', 'fd12::1'])
      await assert.rejects(closed.resolve(ip), TargetRefused, ip);
    await assert.rejects(closed.resolve('localhost'), TargetRefused, 'localhost resolves to loopback');
    for (const ip of ['10.0.0.1', '100.64.0.1', '198.18.0.1']) assert.equal(await open.resolve(ip), ip);
  } finally {
    await closed.close();
    await open.close();
  }
});

test('proxy: a target in each range answers 502 target_refused by default, naming the range and PROXY_ALLOW', async () => {
  const app = await proxyApp(null, { proxyAllow: [] });
  try {
    for (const target of [
      'http://10.0.0.1/',
      'http://172.16.0.1/',
      'http://192.168.1.1/',
      'http://[fd12::1]/',
      'http://100.64.0.1/',
      'http://198.18.0.1/',
      'http://127.0.0.1:9/',
      'http://[::1]:9/',
      'http://localhost:9/',
    ]) {
      const saved = await call(app, 'PATCH', '/endpoints/shop/settings', { proxy: { targetUrl: target } });
      assert.equal(saved.status, 200, saved.text);
      const res = await send(`${app.endpointUrl}/x`);
      assert.equal(res.status, 502, `${target}: ${res.text}`);
      const err = (JSON.parse(res.text) as { error: { code: string; message: string } }).error;
      assert.equal(err.code, 'target_refused', target);
      assert.match(err.message, /PROXY_ALLOW/, target);
    }
  } finally {
    await app.stop();
  }
});

test('proxy to a loopback upstream: refused and never reached by default, answered once PROXY_ALLOW lists loopback', async () => {
  const up = await upstream((_req, res) => res.end('upstream'));
  const closed = await proxyApp(up.url, { proxyAllow: [] });
  const open = await proxyApp(up.url, { proxyAllow: ['127.0.0.0/8'] });
  try {
    const refused = await send(`${closed.endpointUrl}/x`);
    assert.equal(refused.status, 502, refused.text);
    assert.match(refused.text, /loopback.*127\.0\.0\.0\/8/);
    assert.equal(up.seen.length, 0, 'no connection made');
    const served = await send(`${open.endpointUrl}/x`);
    assert.equal(served.status, 200, served.text);
    assert.equal(served.text, 'upstream');
  } finally {
    await closed.stop();
    await open.stop();
    await up.close();
  }
});

test('callout: a target on a private or CGNAT address answers 502 target_refused by default', async () => {
  const app = await calloutApp({ proxyAllow: [] });
  try {
    for (const [path, url] of [
      ['/private', 'http://10.0.0.1/hook'],
      ['/cgnat', 'http://100.64.0.1/hook'],
      ['/bench', 'http://198.18.0.1/hook'],
    ] as const) {
      await calloutRule(app, path, { behavior: 'sync', callout: { url } });
      const res = await send(`${app.endpointUrl}${path}`);
      assert.equal(res.status, 502, `${url}: ${res.text}`);
      assert.equal((JSON.parse(res.text) as { error: { code: string } }).error.code, 'target_refused');
    }
  } finally {
    await app.stop();
  }
});
