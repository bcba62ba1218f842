/**
 * The typed client's rules and settings are literal unions: a misspelled condition operator, action
 * type, callout behaviour or rate-limit period does not compile (`npm test` type-checks this file
 * first; each `@ts-expect-error` fails the type-check if its line compiles). The spelled-right rule
 * is then sent to a real server, which takes it.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Mockingbird, type RuleInput, type SettingsPatch } from '../../src/client/index.js';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';

const right: RuleInput = {
  method: 'GET',
  conditions: [
    { type: 'path', operator: 'template', value: '/users/:id' },
    { type: 'header', key: 'x-tenant', operator: 'equals', value: 'acme' },
  ],
  action: { type: 'mock', status: 200, body: '{}' },
};

const path = { type: 'path', operator: 'equals', value: '/x' } as const;

export const misspelled: RuleInput[] = [
  {
    conditions: [
      // @ts-expect-error 'equalz' is no operator of a path condition
      { type: 'path', operator: 'equalz', value: '/x' },
    ],
    action: { type: 'mock', status: 200 },
  },
  {
    conditions: [
      // @ts-expect-error 'starts_with' is an operator of path conditions, not of header ones
      { type: 'header', key: 'a', operator: 'starts_with', value: 'b' },
    ],
    action: { type: 'mock', status: 200 },
  },
  {
    conditions: [path],
    // @ts-expect-error 'mocks' is no action type
    action: { type: 'mocks', status: 200 },
  },
  {
    conditions: [path],
    // @ts-expect-error a callout's behavior is 'sync' or 'async'
    action: { type: 'callout', behavior: 'later', url: 'https://example.test/hook' },
  },
  {
    // @ts-expect-error 'FETCH' is no method
    method: 'FETCH',
    conditions: [path],
    action: { type: 'mock', status: 200 },
  },
];

export const wrongPeriod: SettingsPatch = {
  // @ts-expect-error 'Minutes' is no rate-limit period ('Second', 'Minute' or 'Hour')
  rateLimit: { enabled: true, limit: 10, period: 'Minutes' },
};

let app: TestApp;
before(async () => {
  app = await startApp({}, { listen: true });
});
after(async () => app.stop());

test('a rule spelled as the types allow is taken by the server', async () => {
  const mb = new Mockingbird({ baseUrl: app.url, apiKey: ADMIN_KEY });
  const ep = await mb.createEndpoint('literal-types');
  const saved = await ep.addRule(right);
  assert.deepEqual(saved.conditions, right.conditions);
  assert.equal(saved.method, 'GET');
});
