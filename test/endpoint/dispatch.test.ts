/** Which endpoint a request is for: the host form and the path form name the same endpoint. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { CustomDomains, endpointForHost, endpointTarget, targetFinder } from '../../src/endpoint/index.js';

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

test('the dispatch finds the endpoint of a host-form request; others are the management plane', () => {
  const domains = new CustomDomains();
  domains.set('shop', 'shop.example');
  const targetOf = targetFinder('localhost', domains);
  const req = (host: string, url: string) => ({ headers: { host }, url }) as IncomingMessage;
  assert.deepEqual(targetOf(req('shop.localhost', '/users?id=1')), {
    name: 'shop',
    path: '/users?id=1',
    pathForm: false,
  });
  assert.deepEqual(targetOf(req('Shop.Example:8443', '/e/x')), {
    name: 'shop',
    path: '/e/x',
    pathForm: false,
  });
  assert.deepEqual(targetOf(req('localhost', '/e/shop/a')), { name: 'shop', path: '/a', pathForm: true });
  assert.equal(targetOf(req('localhost', '/api/v2/endpoints')), undefined);
  assert.equal(targetOf(req('localhost', '/e')), undefined);
});

test('the path form splits into the endpoint name and the path it sees', () => {
  const pathForm = true;
  assert.deepEqual(endpointTarget('/e/shop/users?id=1'), { name: 'shop', path: '/users?id=1', pathForm });
  assert.deepEqual(endpointTarget('/e/Shop'), { name: 'shop', path: '/', pathForm });
  assert.deepEqual(endpointTarget('/e/shop?x=1'), { name: 'shop', path: '/?x=1', pathForm });
});
