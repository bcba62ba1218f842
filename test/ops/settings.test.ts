/** DRAIN_DELAY, METRICS_PORT and METRICS_HOST: defaults, accepted values and refusals. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.js';

test('defaults: no drain delay, no metrics listener of its own, bound to loopback when set', () => {
  const c = loadConfig({}, {});
  assert.equal(c.drainDelay, 0);
  assert.equal(c.metricsPort, undefined);
  assert.equal(c.metricsHost, '127.0.0.1');
});

test('accepted: DRAIN_DELAY in ms up to 600000, METRICS_PORT 0 to 65535 (empty: none)', () => {
  const c = loadConfig({}, { DRAIN_DELAY: '5000', METRICS_PORT: '9464', METRICS_HOST: '10.0.0.5' });
  assert.equal(c.drainDelay, 5000);
  assert.equal(c.metricsPort, 9464);
  assert.equal(c.metricsHost, '10.0.0.5');
  assert.equal(loadConfig({}, { DRAIN_DELAY: '600000' }).drainDelay, 600_000);
  assert.equal(loadConfig({}, { METRICS_PORT: '' }).metricsPort, undefined);
  assert.equal(loadConfig({ 'metrics-port': '65535' }, {}).metricsPort, 65535);
});

test('refused with one sentence naming the setting', () => {
  assert.throws(() => loadConfig({}, { DRAIN_DELAY: '600001' }), {
    name: ConfigError.name,
    message: 'DRAIN_DELAY must be between 0 and 600000, got 600001',
  });
  assert.throws(() => loadConfig({}, { DRAIN_DELAY: '5s' }), /DRAIN_DELAY must be a whole number, got "5s"/);
  assert.throws(() => loadConfig({}, { METRICS_PORT: '65536' }), /METRICS_PORT must be between 0 and 65535/);
  assert.throws(() => loadConfig({ 'metrics-port': 'x' }, {}), /--metrics-port must be a whole number/);
});
