import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp, type TestApp } from '../helpers/app.js';
import { ConfigError, testConfig } from '../../src/config.js';
import { BUILT_IN_PLANS, plansFor, resolvePlans } from '../../src/plans.js';
import {
  assertDetail,
  assertError,
  call,
  createEndpoint,
  createRule,
  mockRule,
  ruleIds,
} from '../helpers/api-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'mockingbird-plans-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

let app: TestApp;
before(async () => {
  const plansFile = file(
    'plans.yaml',
    'team:\n  maxRules: 10\n  requestsPerDay: 1000\n  templating: false\nfree:\n  maxRules: 2\n',
  );
  app = await startApp({ plansFile, defaultPlan: 'team' });
});
after(async () => {
  await app.stop();
});

const templated = (path: string) => ({
  conditions: [{ type: 'path', operator: 'equals', value: path }],
  action: { type: 'mock', body: '{{queryParam "id"}}', templated: true },
});

void test('the built-in plans hold the values of SPEC §10', () => {
  assert.deepEqual(BUILT_IN_PLANS['free'], {
    name: 'free',
    templating: false,
    requestsPerDay: 50,
    maxRules: 3,
    historyRetentionDays: 1,
    tunnel: false,
    proxy: false,
    openapi: false,
  });
  const u = BUILT_IN_PLANS['unlimited']!;
  assert.equal(u.templating && u.tunnel && u.proxy && u.openapi, true);
  assert.equal(u.requestsPerDay ?? u.maxRules ?? u.historyRetentionDays, null);
});

void test('new endpoints get DEFAULT_PLAN; plans come from PLANS_FILE (YAML), built-ins can be redefined', async () => {
  await createEndpoint(app, 'teamed');
  assert.equal((await call(app, 'GET', '/endpoints/teamed')).body.plan, 'team');
  const plans = plansFor(app.ctx.config);
  assert.equal(plans['team']!.maxRules, 10);
  assert.equal(plans['team']!.tunnel, true, 'a new plan has no limit where it says nothing');
  assert.equal(plans['free']!.maxRules, 2);
  assert.equal(plans['free']!.requestsPerDay, 50, 'a redefined built-in keeps what it does not redefine');
});

void test('JSON plans files work too', () => {
  const config = testConfig({
    plansFile: file('p.json', '{"gold": {"requestsPerDay": null, "maxRules": 100}}'),
  });
  assert.equal(plansFor(config)['gold']!.maxRules, 100);
});

void test('a bad plans file or DEFAULT_PLAN is a ConfigError with one clear line', () => {
  const bad: [string, RegExp][] = [
    ['team:\n  requestsPerDay: lots\n', /plan "team": requestsPerDay must be a whole number >= 0.*"lots"/],
    ['team:\n  templatting: true\n', /plan "team": templatting is not a plan field/],
    ['team: 5\n', /plan "team" must be an object/],
    ['- a\n- b\n', /must map plan names to plans/],
    ['"Bad Name":\n  maxRules: 1\n', /plan name "Bad Name"/],
    ['team: {\n', /cannot be read/],
  ];
  for (const [text, re] of bad) {
    const config = testConfig({ plansFile: file('bad.yaml', text) });
    assert.throws(
      () => plansFor(config),
      (err: Error) => err instanceof ConfigError && re.test(err.message) && !err.message.includes('\n'),
      text,
    );
  }
  assert.throws(
    () => plansFor(testConfig({ defaultPlan: 'gold' })),
    /DEFAULT_PLAN names an unknown plan "gold"/,
  );
  assert.throws(() => resolvePlans({ x: { maxRules: -1 } }), ConfigError);
});

void test('startApp with a bad plans file fails with the ConfigError', async () => {
  await assert.rejects(startApp({ plansFile: file('bad2.yaml', 'x:\n  proxy: maybe\n') }), ConfigError);
});

void test('settings.plan must name a known plan (400); an admin may switch plans', async () => {
  await createEndpoint(app, 'switcher');
  assertDetail(await call(app, 'PATCH', '/endpoints/switcher/settings', { plan: 'gold' }), '/plan', '"gold"');
  assertDetail(await call(app, 'PATCH', '/endpoints/switcher/settings', { plan: 'constructor' }), '/plan');
  const r = await call(app, 'PATCH', '/endpoints/switcher/settings', { plan: 'unlimited' });
  assert.equal(r.status, 200);
  assert.equal(r.body.plan, 'unlimited');
});

void test('maxRules: creating beyond the plan is 403 plan_limit (limit − 1, limit, limit + 1)', async () => {
  await createEndpoint(app, 'capped');
  await call(app, 'PATCH', '/endpoints/capped/settings', { plan: 'free' }); // 2 rules in this file
  await createRule(app, 'capped', mockRule('/1'));
  await createRule(app, 'capped', mockRule('/2'));
  const r = await call(app, 'POST', '/endpoints/capped/rules', mockRule('/3'));
  assertError(r, 403, 'plan_limit');
  assert.match(r.body.error.message, /at most 2 rules/);
  assert.equal((await ruleIds(app, 'capped')).length, 2);
  // bulk replace: 2 fits, 3 does not (and leaves the rules as they were)
  assert.deepEqual(
    (await call(app, 'PUT', '/endpoints/capped/rules', { rules: [mockRule('/a'), mockRule('/b')] })).body,
    {
      replaced: 2,
    },
  );
  const before = await ruleIds(app, 'capped');
  assertError(
    await call(app, 'PUT', '/endpoints/capped/rules', {
      rules: [mockRule('/a'), mockRule('/b'), mockRule('/c')],
    }),
    403,
    'plan_limit',
  );
  assert.deepEqual(await ruleIds(app, 'capped'), before);
  // replacing one rule in place does not count twice
  assert.equal((await call(app, 'PUT', `/endpoints/capped/rules/${before[0]}`, mockRule('/z'))).status, 200);
});

void test('templating: a templated rule on a plan without it is 403 plan_limit (mock, weighted, callout)', async () => {
  await createEndpoint(app, 'plain'); // plan team: no templating
  assertError(await call(app, 'POST', '/endpoints/plain/rules', templated('/t')), 403, 'plan_limit');
  const weighted = {
    conditions: [{ type: 'path', operator: 'equals', value: '/w' }],
    action: {
      type: 'weighted',
      responses: [{ weight: 50 }, { weight: 50, body: '{{now}}', templated: true }],
    },
  };
  assertError(await call(app, 'POST', '/endpoints/plain/rules', weighted), 403, 'plan_limit');
  const callout = {
    conditions: [{ type: 'path', operator: 'equals', value: '/c' }],
    action: {
      type: 'callout',
      behavior: 'async',
      callout: { url: 'http://127.0.0.1:9/', body: '{{body "a"}}', templated: true },
    },
  };
  assertError(await call(app, 'POST', '/endpoints/plain/rules', callout), 403, 'plan_limit');
  assertError(
    await call(app, 'PUT', '/endpoints/plain/rules', { rules: [mockRule('/a'), templated('/t')] }),
    403,
    'plan_limit',
  );
  const id = await createRule(app, 'plain', mockRule('/ok'));
  assertError(
    await call(app, 'PATCH', `/endpoints/plain/rules/${id}`, { action: { type: 'mock', templated: true } }),
    403,
    'plan_limit',
  );
  assertError(await call(app, 'PUT', `/endpoints/plain/rules/${id}`, templated('/t')), 403, 'plan_limit');
  assert.equal((await call(app, 'GET', `/endpoints/plain/rules/${id}`)).body.action.templated, false);
  // the same rule is fine on a plan with templating
  await call(app, 'PATCH', '/endpoints/plain/settings', { plan: 'unlimited' });
  assert.equal((await call(app, 'POST', '/endpoints/plain/rules', templated('/t'))).status, 201);
});

void test('proxy and local tunnel settings are refused (403 plan_limit) on a plan without them', async () => {
  await createEndpoint(app, 'freebie');
  await call(app, 'PATCH', '/endpoints/freebie/settings', { plan: 'free' });
  assertError(
    await call(app, 'PATCH', '/endpoints/freebie/settings', { proxy: { targetUrl: 'http://127.0.0.1:9/' } }),
    403,
    'plan_limit',
  );
  assertError(
    await call(app, 'PATCH', '/endpoints/freebie/settings', { localTunnel: true }),
    403,
    'plan_limit',
  );
  assert.equal((await call(app, 'PATCH', '/endpoints/freebie/settings', { localTunnel: false })).status, 200);
});
