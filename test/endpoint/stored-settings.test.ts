/** The typed reading of the three stored settings read outside the mock model (endpoint/stored-settings.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimedDomain, isBuiltIn, storedSettings } from '../../src/endpoint/index.js';

test('the plan, the built-in mark and the custom domain are read typed', () => {
  assert.deepEqual(
    storedSettings({
      plan: 'team',
      builtIn: true,
      customDomain: { enabled: true, domain: 'Api.Example.com' },
    }),
    { plan: 'team', builtIn: true, customDomain: { domain: 'Api.Example.com', enabled: true } },
  );
  assert.deepEqual(storedSettings({}), { plan: undefined, builtIn: false, customDomain: undefined });
});

test('a part of an unexpected type reads as absent, never as a truthy value', () => {
  const s = storedSettings({ plan: 7, builtIn: 'true', customDomain: { enabled: 'yes', domain: 5 } });
  assert.deepEqual(s, { plan: undefined, builtIn: false, customDomain: undefined });
  assert.deepEqual(storedSettings({ customDomain: ['x'] }).customDomain, undefined);
  assert.equal(
    storedSettings({ customDomain: { domain: 'a.test', enabled: 'yes' } }).customDomain?.enabled,
    false,
  );
});

test('a domain is claimed only when enabled and not empty, in its lower-case form', () => {
  assert.equal(
    claimedDomain({ customDomain: { enabled: true, domain: 'Api.Example.com.' } }),
    'api.example.com',
  );
  assert.equal(claimedDomain({ customDomain: { enabled: false, domain: 'api.example.com' } }), undefined);
  assert.equal(claimedDomain({ customDomain: { enabled: true, domain: '' } }), undefined);
  assert.equal(isBuiltIn({ settings: { builtIn: true } }), true);
  assert.equal(isBuiltIn({ settings: { builtIn: 1 } }), false);
});
