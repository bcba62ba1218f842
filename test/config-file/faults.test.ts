/**
 * Mocks as code and the typed client know faults, delay distributions, the dribble and chaos
 * (issue 37): a file that uses them loads and the endpoint then misbehaves as written; an export
 * carries them back; the client's types take them and refuse a misspelled fault (the type-check of
 * `npm test` fails if an `@ts-expect-error` line compiles).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parse } from 'yaml';
import { request } from 'undici';
import { exportConfig, loadConfigFile } from '../../src/config-file/index.js';
import { Mockingbird, type RuleInput, type SettingsPatch } from '../../src/client/index.js';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { tempFiles } from './helpers.js';

const FILE = `endpoints:
  resilience:
    settings:
      chaos: { percent: 100, delay: { distribution: uniform, min: 1, max: 2 }, seed: 7 }
      faults: { proxy: timeout }
    rules:
      - conditions: [{ type: path, operator: equals, value: /reset }]
        action: { type: mock, fault: connection_reset }
      - conditions: [{ type: path, operator: equals, value: /slow }]
        action:
          type: mock
          body: abcdef
          delay: { distribution: lognormal, median: 5, sigma: 0.2, max: 20 }
          chunked: { chunks: 3, totalDuration: 30 }
`;

export const typed: RuleInput = {
  conditions: [{ type: 'path', operator: 'equals', value: '/x' }],
  action: {
    type: 'weighted',
    responses: [
      { weight: 90, body: 'ok', delay: { distribution: 'fixed', value: 5 } },
      { weight: 10, fault: 'random_data_then_close' },
    ],
  },
};

export const misspelledFault: RuleInput = {
  conditions: [{ type: 'path', operator: 'equals', value: '/x' }],
  // @ts-expect-error 'reset' is no fault ('connection_reset' is)
  action: { type: 'mock', fault: 'reset' },
};

export const misspelledDistribution: SettingsPatch = {
  // @ts-expect-error 'normal' is no distribution ('fixed', 'uniform' or 'lognormal')
  chaos: { percent: 5, delay: { distribution: 'normal', median: 5 } },
};

export const misspelledDribble: RuleInput = {
  conditions: [{ type: 'path', operator: 'equals', value: '/x' }],
  // @ts-expect-error `chunked` takes chunks and totalDuration ('duration' is not one)
  action: { type: 'mock', chunked: { chunks: 2, duration: 10 } },
};

export const misspelledTunnelFault: SettingsPatch = {
  // @ts-expect-error 'hang' is no fault ('timeout' is)
  faults: { tunnel: 'hang' },
};

let app: TestApp;
before(async () => {
  app = await startApp({}, { listen: true });
});
after(async () => app.stop());

test('a file with faults, distributions, a dribble and chaos loads, answers so, and exports back', async () => {
  const dir = tempFiles({ 'r.yaml': FILE });
  await loadConfigFile(app.ctx, join(dir, 'r.yaml'));
  await assert.rejects(request(`${app.url}/e/resilience/reset`), { code: 'ECONNRESET' });
  const slow = await request(`${app.url}/e/resilience/slow`);
  assert.equal(slow.headers['transfer-encoding'], 'chunked');
  assert.equal(await slow.body.text(), 'abcdef');
  const yaml = parse(await exportConfig({ server: app.url, apiKey: ADMIN_KEY })) as {
    endpoints: Record<
      string,
      { settings: Record<string, unknown>; rules: { action: Record<string, unknown> }[] }
    >;
  };
  const ep = yaml.endpoints['resilience']!;
  assert.deepEqual(ep.settings['chaos'], {
    percent: 100,
    delay: { distribution: 'uniform', min: 1, max: 2 },
    seed: 7,
  });
  assert.deepEqual(ep.settings['faults'], { proxy: 'timeout' });
  assert.equal(ep.rules[0]!.action['fault'], 'connection_reset');
  assert.deepEqual(ep.rules[1]!.action['chunked'], { chunks: 3, totalDuration: 30 });
  assert.deepEqual(ep.rules[1]!.action['delay'], {
    distribution: 'lognormal',
    median: 5,
    sigma: 0.2,
    max: 20,
  });
});

test('the typed client sends a weighted rule with a fault and a distribution, and chaos settings', async () => {
  const mb = new Mockingbird({ baseUrl: app.url, apiKey: ADMIN_KEY });
  const ep = await mb.createEndpoint('typed-faults');
  const saved = await ep.addRule(typed);
  assert.equal(saved.action.type, 'weighted');
  const s = await ep.updateSettings({ chaos: { percent: 1, fault: 'timeout' } });
  assert.deepEqual(s.chaos, { percent: 1, fault: 'timeout' });
});
