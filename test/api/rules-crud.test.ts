import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import type { MockEvent } from '../../src/events/index.js';
import {
  assertDetail,
  assertError,
  call,
  createEndpoint,
  createRule,
  mockRule,
  ruleIds,
  scopedKey,
} from '../helpers/api-helpers.js';

let app: TestApp;
let n = 0;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app.stop();
});

/** A new endpoint with `count` rules for paths /r0, /r1 …; returns its name and the rule ids. */
async function withRules(count: number): Promise<{ ep: string; ids: string[] }> {
  const ep = `rules-${++n}`;
  await createEndpoint(app, ep);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(await createRule(app, ep, mockRule(`/r${i}`)));
  return { ep, ids };
}

void test('POST creates at the bottom (201) with a generated id and every default filled in', async () => {
  const { ep, ids } = await withRules(2);
  const r = await call(app, 'POST', `/endpoints/${ep}/rules`, {
    conditions: [{ type: 'path', operator: 'starts_with', value: '/users' }],
    action: { type: 'mock' },
  });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(Object.keys(r.body), ['id', 'enabled', 'method', 'description', 'conditions', 'action']);
  assert.equal(r.body.enabled, true);
  assert.equal(r.body.method, '*');
  assert.equal(r.body.description, '');
  assert.deepEqual(r.body.action, {
    type: 'mock',
    status: 200,
    headers: [],
    body: '',
    templated: false,
    delay: 0,
  });
  assert.notEqual(r.body.id, ids[0]);
  assert.deepEqual(await ruleIds(app, ep), [...ids, r.body.id]);
  const ignored = await call(app, 'POST', `/endpoints/${ep}/rules`, { ...mockRule('/x'), id: 'my-own-id' });
  assert.notEqual(ignored.body.id, 'my-own-id');
});

void test('GET lists rules in order; GET one; 404 for an unknown rule or endpoint', async () => {
  const { ep, ids } = await withRules(3);
  const list = await call(app, 'GET', `/endpoints/${ep}/rules`);
  assert.equal(list.status, 200);
  assert.deepEqual(
    (list.body.data as { action: { body: string } }[]).map((r) => r.action.body),
    ['rule /r0', 'rule /r1', 'rule /r2'],
  );
  const one = await call(app, 'GET', `/endpoints/${ep}/rules/${ids[1]}`);
  assert.equal(one.status, 200);
  assert.equal(one.body.id, ids[1]);
  assert.equal(one.body.conditions[0].value, '/r1');
  assertError(await call(app, 'GET', `/endpoints/${ep}/rules/nope`), 404, 'not_found');
  assertError(await call(app, 'GET', '/endpoints/nope-nope/rules'), 404, 'not_found');
  assertError(await call(app, 'POST', '/endpoints/nope-nope/rules', mockRule('/x')), 404, 'not_found');
});

void test('PUT one replaces the rule, keeping its id and position', async () => {
  const { ep, ids } = await withRules(3);
  const r = await call(app, 'PUT', `/endpoints/${ep}/rules/${ids[1]}`, {
    ...mockRule('/changed', 201),
    id: 'ignored',
  });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.id, ids[1]);
  assert.equal(r.body.action.status, 201);
  assert.deepEqual(await ruleIds(app, ep), ids);
  assert.equal(
    (await call(app, 'GET', `/endpoints/${ep}/rules/${ids[1]}`)).body.conditions[0].value,
    '/changed',
  );
  assertError(await call(app, 'PUT', `/endpoints/${ep}/rules/nope`, mockRule('/x')), 404, 'not_found');
  assertDetail(
    await call(app, 'PUT', `/endpoints/${ep}/rules/${ids[1]}`, { action: { type: 'mock' } }),
    '/conditions',
  );
});

// SPEC §4 (changed): PATCH replaces `conditions` and `action` whole; this test pinned the earlier merge.
void test('PATCH changes some fields, replaces the action whole, keeps id and position', async () => {
  const { ep, ids } = await withRules(3);
  let r = await call(app, 'PATCH', `/endpoints/${ep}/rules/${ids[0]}`, {
    enabled: false,
    action: { type: 'mock', status: 404 },
  });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.enabled, false);
  assert.equal(r.body.action.status, 404);
  assert.equal(r.body.action.body, '', 'the action is replaced whole: the old body is gone');
  assertDetail(
    await call(app, 'PATCH', `/endpoints/${ep}/rules/${ids[0]}`, { action: { status: 404 } }),
    '/action/type',
  );
  assert.equal(r.body.conditions[0].value, '/r0');
  r = await call(app, 'PATCH', `/endpoints/${ep}/rules/${ids[0]}`, { action: { type: 'crud' } });
  assert.deepEqual(r.body.action, { type: 'crud', idField: 'id' });
  assert.deepEqual(await ruleIds(app, ep), ids);
  assertDetail(
    await call(app, 'PATCH', `/endpoints/${ep}/rules/${ids[1]}`, { action: { type: 'mock', status: 50 } }),
    '/action/status',
    '50',
  );
  assertDetail(
    await call(app, 'PATCH', `/endpoints/${ep}/rules/${ids[1]}`, { conditions: [] }),
    '/conditions',
  );
  assertDetail(await call(app, 'PATCH', `/endpoints/${ep}/rules/${ids[1]}`, { colour: 'red' }), '/colour');
  assertError(await call(app, 'PATCH', `/endpoints/${ep}/rules/nope`, { enabled: false }), 404, 'not_found');
});

void test('DELETE one answers {id, deleted}; the rest keep their relative order; 404 when unknown', async () => {
  const { ep, ids } = await withRules(4);
  const r = await call(app, 'DELETE', `/endpoints/${ep}/rules/${ids[1]}`);
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { id: ids[1], deleted: true });
  assert.deepEqual(await ruleIds(app, ep), [ids[0], ids[2], ids[3]]);
  assertError(await call(app, 'DELETE', `/endpoints/${ep}/rules/${ids[1]}`), 404, 'not_found');
});

void test('DELETE all answers {deleted, count} and leaves the settings alone', async () => {
  const { ep } = await withRules(3);
  await call(app, 'PATCH', `/endpoints/${ep}/settings`, { locale: 'de' });
  const r = await call(app, 'DELETE', `/endpoints/${ep}/rules`);
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { deleted: true, count: 3 });
  assert.deepEqual(await ruleIds(app, ep), []);
  assert.equal((await call(app, 'GET', `/endpoints/${ep}/settings`)).body.locale, 'de');
  assert.deepEqual((await call(app, 'DELETE', `/endpoints/${ep}/rules`)).body, { deleted: true, count: 0 });
});

void test('reorder moves the listed ids to the top in that order; the rest keep their order', async () => {
  const { ep, ids } = await withRules(5);
  const r = await call(app, 'POST', `/endpoints/${ep}/rules/reorder`, { order: [ids[3], ids[1]] });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body, { data: { reordered: 2 } });
  assert.deepEqual(await ruleIds(app, ep), [ids[3], ids[1], ids[0], ids[2], ids[4]]);
  assertDetail(
    await call(app, 'POST', `/endpoints/${ep}/rules/reorder`, { order: [ids[0], 'nope'] }),
    '/order/1',
    '"nope"',
  );
  assertDetail(
    await call(app, 'POST', `/endpoints/${ep}/rules/reorder`, { order: [ids[0], ids[0]] }),
    '/order/1',
  );
  assertDetail(await call(app, 'POST', `/endpoints/${ep}/rules/reorder`, { order: 'x' }), '/order');
  assertDetail(await call(app, 'POST', `/endpoints/${ep}/rules/reorder`, {}), '/order');
  assert.deepEqual(
    await ruleIds(app, ep),
    [ids[3], ids[1], ids[0], ids[2], ids[4]],
    'refused reorders change nothing',
  );
});

void test('PUT all replaces every rule in the given order, keeping given ids', async () => {
  const { ep, ids } = await withRules(3);
  const r = await call(app, 'PUT', `/endpoints/${ep}/rules`, {
    rules: [{ ...mockRule('/b'), id: 'keep-me' }, mockRule('/a')],
  });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body, { replaced: 2 });
  const now = await ruleIds(app, ep);
  assert.equal(now.length, 2);
  assert.equal(now[0], 'keep-me');
  assert.ok(!ids.includes(now[1]!));
  const list = (await call(app, 'GET', `/endpoints/${ep}/rules`)).body.data as {
    conditions: { value: string }[];
  }[];
  assert.deepEqual(
    list.map((x) => x.conditions[0]!.value),
    ['/b', '/a'],
  );
  assert.deepEqual((await call(app, 'PUT', `/endpoints/${ep}/rules`, { rules: [] })).body, { replaced: 0 });
  assert.deepEqual(await ruleIds(app, ep), []);
});

void test('PUT all is atomic: one invalid rule refuses the list and the old rules stay', async () => {
  const { ep, ids } = await withRules(3);
  const r = await call(app, 'PUT', `/endpoints/${ep}/rules`, {
    rules: [
      mockRule('/ok'),
      { ...mockRule('/bad'), action: { type: 'mock', status: 700 } },
      mockRule('/ok2'),
    ],
  });
  assertDetail(r, '/rules/1/action/status', '700');
  assert.deepEqual(await ruleIds(app, ep), ids);
  assertDetail(
    await call(app, 'PUT', `/endpoints/${ep}/rules`, {
      rules: [
        { ...mockRule('/a'), id: 'x' },
        { ...mockRule('/b'), id: 'x' },
      ],
    }),
    '/rules/1/id',
  );
  assertDetail(await call(app, 'PUT', `/endpoints/${ep}/rules`, { rule: [] }), '/rules');
  assert.deepEqual(await ruleIds(app, ep), ids);
});

void test('PUT all takes at most 500 rules (499, 500 accepted; 501 refused)', async () => {
  const { ep } = await withRules(0);
  for (const count of [499, 500]) {
    const rules = Array.from({ length: count }, (_, i) => mockRule(`/p${i}`));
    const r = await call(app, 'PUT', `/endpoints/${ep}/rules`, { rules });
    assert.deepEqual(r.body, { replaced: count });
  }
  const rules = Array.from({ length: 501 }, (_, i) => mockRule(`/p${i}`));
  assertDetail(await call(app, 'PUT', `/endpoints/${ep}/rules`, { rules }), '/rules');
  assert.equal((await ruleIds(app, ep)).length, 500);
});

// Issue 10 asks for endpoints of 1,000 rules: the per-endpoint cap is now 2,000 (a bulk replace stays at 500,
// SPEC §4); this test pinned the earlier per-endpoint cap of 500.
void test('an endpoint holds up to 2,000 rules: the 1,999th and 2,000th are created, the 2,001st refused', async () => {
  const { ep } = await withRules(0);
  const seed = Array.from({ length: 1998 }, (_, i) => ({
    id: `seed-${i}`,
    data: { ...mockRule(`/s${i}`), enabled: true, method: '*', description: '' },
  }));
  await app.ctx.store.replaceRules(ep, seed);
  assert.equal((await call(app, 'POST', `/endpoints/${ep}/rules`, mockRule('/1999'))).status, 201);
  assert.equal((await call(app, 'POST', `/endpoints/${ep}/rules`, mockRule('/2000'))).status, 201);
  assertDetail(await call(app, 'POST', `/endpoints/${ep}/rules`, mockRule('/one-more')), '/');
  assert.equal((await ruleIds(app, ep)).length, 2000);
});

void test('a scoped key manages its own rules (200) and gets 403 on another endpoint', async () => {
  const mine = await withRules(1);
  const theirs = await withRules(1);
  const key = await scopedKey(app, mine.ep);
  assert.equal((await call(app, 'GET', `/endpoints/${mine.ep}/rules`, undefined, key)).status, 200);
  assert.equal((await call(app, 'POST', `/endpoints/${mine.ep}/rules`, mockRule('/k'), key)).status, 201);
  for (const [method, path, body] of [
    ['GET', `/endpoints/${theirs.ep}/rules`],
    ['POST', `/endpoints/${theirs.ep}/rules`, mockRule('/k')],
    ['PUT', `/endpoints/${theirs.ep}/rules`, { rules: [] }],
    ['DELETE', `/endpoints/${theirs.ep}/rules`],
    ['POST', `/endpoints/${theirs.ep}/rules/reorder`, { order: [] }],
    ['GET', `/endpoints/${theirs.ep}/rules/${theirs.ids[0]}`],
    ['PUT', `/endpoints/${theirs.ep}/rules/${theirs.ids[0]}`, mockRule('/k')],
    ['PATCH', `/endpoints/${theirs.ep}/rules/${theirs.ids[0]}`, { enabled: false }],
    ['DELETE', `/endpoints/${theirs.ep}/rules/${theirs.ids[0]}`],
  ] as [string, string, unknown?][]) {
    assertError(await call(app, method, path, body, key), 403, 'forbidden');
  }
  assert.equal((await ruleIds(app, theirs.ep)).length, 1);
  assertError(
    await call(app, 'GET', `/endpoints/${mine.ep}/rules`, undefined, null),
    401,
    'missing_authentication',
  );
});

void test('rule changes are published: rule.created/updated/deleted, rules.deleted, rules.reordered', async () => {
  const { ep, ids } = await withRules(2);
  const seen: MockEvent[] = [];
  const stop = app.ctx.events.subscribe(ep, (e) => seen.push(e));
  const id = await createRule(app, ep, mockRule('/e'));
  await call(app, 'PATCH', `/endpoints/${ep}/rules/${id}`, { enabled: false });
  await call(app, 'POST', `/endpoints/${ep}/rules/reorder`, { order: [id] });
  await call(app, 'DELETE', `/endpoints/${ep}/rules/${ids[0]}`);
  await call(app, 'PUT', `/endpoints/${ep}/rules`, { rules: [mockRule('/z')] });
  await call(app, 'DELETE', `/endpoints/${ep}/rules`);
  stop();
  assert.deepEqual(
    seen.map((e) => e.name),
    ['rule.created', 'rule.updated', 'rules.reordered', 'rule.deleted', 'rules.reordered', 'rules.deleted'],
  );
  assert.equal((seen[0]!.data as { id: string }).id, id);
  assert.equal((seen[1]!.data as { enabled: boolean }).enabled, false);
  assert.deepEqual(seen[2]!.data, { order: [id, ids[0], ids[1]] });
  assert.deepEqual(seen[3]!.data, { id: ids[0] });
  assert.equal((seen[4]!.data as { replaced: number }).replaced, 1);
  assert.deepEqual(seen[5]!.data, { count: 1 });
});
