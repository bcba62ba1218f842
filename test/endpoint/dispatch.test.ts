/** Which endpoint a request is for: the host form and the path form name the same endpoint. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { endpointForHost, endpointTarget, rewriteUrlFor } from '../../src/endpoint/index.js';

test('a sub-domain of the base domain names an endpoint; service labels and other hosts do not', () => {
  assert.equal(endpointForHost('shop.localhost:8080', 'localhost'), 'shop');
  assert.equal(endpointForHost('SHOP.Localhost.', 'localhost'), 'shop');
  assert.equal(endpointForHost('echo.localhost', 'localhost'), 'echo');
  for (const host of [
    'api.localhost',
    'tools.localhost',
    'localhost',
    'a.b.localhost',
    '[::1]:80',
    undefined,
  ])
    assert.equal(endpointForHost(host, 'localhost'), undefined, String(host));
});

test('rewriteUrl turns a host-form request into the path form; others pass unchanged', () => {
  const rewrite = rewriteUrlFor('localhost');
  const req = (host: string, url: string) => ({ headers: { host }, url }) as IncomingMessage;
  assert.equal(rewrite(req('shop.localhost', '/users?id=1')), '/e/shop/users?id=1');
  assert.equal(rewrite(req('localhost', '/api/v2/endpoints')), '/api/v2/endpoints');
});

test('the path form splits into the endpoint name and the path it sees', () => {
  assert.deepEqual(endpointTarget('/e/shop/users?id=1'), { name: 'shop', path: '/users?id=1' });
  assert.deepEqual(endpointTarget('/e/Shop'), { name: 'shop', path: '/' });
  assert.deepEqual(endpointTarget('/e/shop?x=1'), { name: 'shop', path: '/?x=1' });
});
