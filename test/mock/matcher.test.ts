/** Rule matching: every condition operator (a match and a miss), first match wins, the index. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRules, REGEX_INPUT_MAX, type Condition } from '../../src/mock/index.js';
import { req, rule } from './rule-helpers.js';

async function matches(c: Condition, r: Parameters<typeof req>): Promise<boolean> {
  return compileRules([rule([c])]).match(await req(...r)) !== undefined;
}

const JSON_BODY = (b: unknown) => ({ body: JSON.stringify(b), contentType: 'application/json' });

const CASES: [string, Condition, Parameters<typeof req>, Parameters<typeof req>][] = [
  ['path equals', { type: 'path', operator: 'equals', value: '/a' }, ['GET', '/a?x=1'], ['GET', '/a/b']],
  [
    'path starts_with',
    { type: 'path', operator: 'starts_with', value: '/api/' },
    ['GET', '/api/x'],
    ['GET', '/ap'],
  ],
  [
    'path contains',
    { type: 'path', operator: 'contains', value: 'user' },
    ['GET', '/x/users'],
    ['GET', '/x?user=1'],
  ],
  [
    'path regex',
    { type: 'path', operator: 'regex', value: '^/v[0-9]+/' },
    ['GET', '/v2/x'],
    ['GET', '/vx/x'],
  ],
  [
    'path template',
    { type: 'path', operator: 'template', value: '/users/:id' },
    ['GET', '/users/7'],
    ['GET', '/users/7/x'],
  ],
  [
    'header equals',
    { type: 'header', key: 'X-Env', operator: 'equals', value: 'prod' },
    ['GET', '/', { headers: { 'x-env': 'prod' } }],
    ['GET', '/', { headers: { 'x-env': 'dev' } }],
  ],
  [
    'header contains',
    { type: 'header', key: 'accept', operator: 'contains', value: 'json' },
    ['GET', '/', { headers: { accept: 'application/json' } }],
    ['GET', '/'],
  ],
  [
    'header regex',
    { type: 'header', key: 'x-n', operator: 'regex', value: '^\\d+$' },
    ['GET', '/', { headers: { 'x-n': '42' } }],
    ['GET', '/', { headers: { 'x-n': '4a' } }],
  ],
  [
    'query equals',
    { type: 'query_param', key: 'a', operator: 'equals', value: '2' },
    ['GET', '/?a=1&a=2'],
    ['GET', '/?a=1'],
  ],
  [
    'query contains',
    { type: 'query_param', key: 'q', operator: 'contains', value: 'ell' },
    ['GET', '/?q=hello'],
    ['GET', '/?q=help'],
  ],
  [
    'query regex',
    { type: 'query_param', key: 'id', operator: 'regex', value: '^[a-f]+$' },
    ['GET', '/?id=abc'],
    ['GET', '/?id=xyz'],
  ],
  [
    'query exists',
    { type: 'query_param', key: 'debug', operator: 'exists' },
    ['GET', '/?debug'],
    ['GET', '/?other=1'],
  ],
  [
    'body contains',
    { type: 'body', operator: 'contains', value: 'needle' },
    ['POST', '/', { body: 'hay needle hay' }],
    ['POST', '/', { body: 'hay' }],
  ],
  [
    'body regex',
    { type: 'body', operator: 'regex', value: '"count":\\s*[0-9]+' },
    ['POST', '/', { body: '{"count": 3}' }],
    ['POST', '/', { body: '{"count": "x"}' }],
  ],
  [
    'body_param equals',
    { type: 'body_param', key: 'user.tags.1', operator: 'equals', value: 'b' },
    ['POST', '/', JSON_BODY({ user: { tags: ['a', 'b'] } })],
    ['POST', '/', JSON_BODY({ user: { tags: ['a'] } })],
  ],
  [
    'body_param equals (number)',
    { type: 'body_param', key: 'n', operator: 'equals', value: '5' },
    ['POST', '/', JSON_BODY({ n: 5 })],
    ['POST', '/', JSON_BODY({ n: 6 })],
  ],
  [
    'body_param not_equals',
    { type: 'body_param', key: 'a', operator: 'not_equals', value: 'x' },
    ['POST', '/', JSON_BODY({ a: 'y' })],
    ['POST', '/', JSON_BODY({ a: 'x' })],
  ],
  [
    'body_param contains',
    { type: 'body_param', key: 'tags', operator: 'contains', value: 'vip' },
    ['POST', '/', JSON_BODY({ tags: ['vip'] })],
    ['POST', '/', JSON_BODY({ tags: ['v'] })],
  ],
  [
    'body_param not_contains',
    { type: 'body_param', key: 's', operator: 'not_contains', value: 'bad' },
    ['POST', '/', JSON_BODY({ s: 'good' })],
    ['POST', '/', JSON_BODY({ s: 'so bad' })],
  ],
  [
    'body_param is_null',
    { type: 'body_param', key: 'a.b', operator: 'is_null' },
    ['POST', '/', JSON_BODY({ a: {} })],
    ['POST', '/', JSON_BODY({ a: { b: 1 } })],
  ],
  [
    'body_param is_not_null',
    { type: 'body_param', key: 'a', operator: 'is_not_null' },
    ['POST', '/', JSON_BODY({ a: 0 })],
    ['POST', '/', JSON_BODY({ a: null })],
  ],
  [
    'body_param (form)',
    { type: 'body_param', key: 'name', operator: 'equals', value: 'bob' },
    ['POST', '/', { body: 'name=bob', contentType: 'application/x-www-form-urlencoded' }],
    ['POST', '/', { body: 'name=al', contentType: 'application/x-www-form-urlencoded' }],
  ],
  [
    'graphql equals (operationName)',
    { type: 'graphql', operator: 'equals', value: 'GetUser' },
    ['POST', '/graphql', JSON_BODY({ operationName: 'GetUser', query: 'query GetUser { u }' })],
    ['POST', '/graphql', JSON_BODY({ query: 'query Other { u }' })],
  ],
  [
    'graphql equals (first named operation)',
    { type: 'graphql', operator: 'equals', value: 'GetUser' },
    ['POST', '/g', JSON_BODY({ query: 'query GetUser($id: ID) { user(id: $id) { name } }' })],
    ['POST', '/g', JSON_BODY({ query: '{ user { name } }' })],
  ],
  [
    'graphql equals (GET query string)',
    { type: 'graphql', operator: 'equals', value: 'Q' },
    ['GET', '/g?query=query%20Q%20%7B%20a%20%7D'],
    ['GET', '/g?query=%7B%20a%20%7D'],
  ],
  [
    'graphql contains',
    { type: 'graphql', operator: 'contains', value: 'orders' },
    ['POST', '/g', JSON_BODY({ query: '{ orders { id } }' })],
    ['POST', '/g', JSON_BODY({ query: '{ users { id } }' })],
  ],
  [
    'graphql regex',
    { type: 'graphql', operator: 'regex', value: 'user\\s*\\(' },
    ['POST', '/g', JSON_BODY({ query: '{ user (id: 1) { id } }' })],
    ['POST', '/g', JSON_BODY({ query: '{ users { id } }' })],
  ],
  [
    'soap_action header',
    { type: 'soap_action', operator: 'equals', value: 'urn:GetQuote' },
    ['POST', '/soap', { headers: { soapaction: '"urn:GetQuote"' } }],
    ['POST', '/soap', { headers: { soapaction: 'urn:Other' } }],
  ],
  [
    'soap_action SOAP 1.2',
    { type: 'soap_action', operator: 'equals', value: 'urn:GetQuote' },
    ['POST', '/soap', { contentType: 'application/soap+xml; charset=utf-8; action="urn:GetQuote"' }],
    ['POST', '/soap', { contentType: 'application/soap+xml' }],
  ],
];

for (const [name, c, hit, miss] of CASES) {
  test(`${name}: matches and misses`, async () => {
    assert.equal(await matches(c, hit), true, 'should match');
    assert.equal(await matches(c, miss), false, 'should not match');
  });
}

test('a state condition with no state read: the counter counts as 0, so gt 0 does not hold', async () => {
  assert.equal(
    await matches({ type: 'state', key: 'k', stateType: 'counter', operator: 'gt', value: '0' }, [
      'GET',
      '/',
    ]),
    false,
  );
});

test('template parameters and regex named groups become path parameters', async () => {
  const t = compileRules([rule([{ type: 'path', operator: 'template', value: '/users/:id/orders/:order' }])]);
  assert.deepEqual(t.match(await req('GET', '/users/7/orders/a%20b'))?.pathParams, { id: '7', order: 'a b' });
  const r = compileRules([
    rule([{ type: 'path', operator: 'regex', value: '^/items/(?<sku>[A-Z]+)-(?<n>\\d+)$' }]),
  ]);
  assert.deepEqual(r.match(await req('GET', '/items/AB-12'))?.pathParams, { sku: 'AB', n: '12' });
});

test('all conditions must hold; the rule method must fit (* is any, TRACE too)', async () => {
  const both = rule(
    [
      { type: 'path', operator: 'equals', value: '/x' },
      { type: 'header', key: 'x-a', operator: 'equals', value: '1' },
    ],
    { method: 'POST' },
  );
  const rules = compileRules([both]);
  assert.ok(rules.match(await req('POST', '/x', { headers: { 'x-a': '1' } })));
  assert.equal(rules.match(await req('POST', '/x')), undefined);
  assert.equal(rules.match(await req('GET', '/x', { headers: { 'x-a': '1' } })), undefined);
  const any = compileRules([rule([{ type: 'path', operator: 'equals', value: '/t' }])]);
  assert.ok(any.match(await req('TRACE', '/t')));
  const trace = compileRules([
    rule([{ type: 'path', operator: 'equals', value: '/t' }], { method: 'TRACE' }),
  ]);
  assert.ok(trace.match(await req('TRACE', '/t')));
  assert.equal(trace.match(await req('GET', '/t')), undefined);
});

test('first enabled match wins; disabled rules are skipped', async () => {
  const path = { type: 'path', operator: 'starts_with', value: '/a' } as const;
  const off = rule([path], { enabled: false });
  const first = rule([path]);
  const second = rule([path]);
  const compiled = compileRules([off, first, second]);
  assert.equal(compiled.match(await req('GET', '/a'))?.rule.id, first.id);
  assert.equal(compiled.size, 2);
});

test('the index: a request is checked only against rules of its method and first path segment, in order', async () => {
  const rules = Array.from({ length: 1000 }, (_, i) =>
    rule([{ type: 'path', operator: 'equals', value: `/r${i}` }], { method: 'GET' }),
  );
  const anyPath = rule([{ type: 'path', operator: 'contains', value: 'z' }]);
  const template = rule([{ type: 'path', operator: 'template', value: '/r999/:id' }], { method: 'GET' });
  const compiled = compileRules([...rules, anyPath, template]);
  assert.deepEqual(
    compiled.candidates('GET', '/r999').map((r) => r.id),
    [rules[999]!.id, anyPath.id, template.id],
  );
  assert.deepEqual(
    compiled.candidates('POST', '/r999').map((r) => r.id),
    [anyPath.id],
  );
  assert.equal(compiled.match(await req('GET', '/r999'))?.rule.id, rules[999]!.id);
  assert.equal(compiled.match(await req('GET', '/r999/5'))?.rule.id, template.id);
  assert.equal(compiled.match(await req('GET', '/zz'))?.rule.id, anyPath.id);
});

test('regexes run in linear time: (a+)+$ over 60,000 characters takes milliseconds', async () => {
  const compiled = compileRules([rule([{ type: 'body', operator: 'regex', value: '(a+)+$' }])]);
  const started = process.hrtime.bigint();
  const r = compiled.match(await req('POST', '/', { body: 'a'.repeat(60_000) + 'b' }));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  assert.equal(r, undefined);
  assert.ok(ms < 1000, `took ${ms} ms`);
});

test('a regex sees at most REGEX_INPUT_MAX characters of its input', async () => {
  const compiled = compileRules([rule([{ type: 'body', operator: 'regex', value: 'needle' }])]);
  const at = (offset: number) => 'x'.repeat(offset) + 'needle';
  assert.ok(compiled.match(await req('POST', '/', { body: at(REGEX_INPUT_MAX - 6) })));
  assert.equal(compiled.match(await req('POST', '/', { body: at(REGEX_INPUT_MAX - 5) })), undefined);
  // `contains` has no such cap: it is linear by nature.
  const plain = compileRules([rule([{ type: 'body', operator: 'contains', value: 'needle' }])]);
  assert.ok(plain.match(await req('POST', '/', { body: at(REGEX_INPUT_MAX * 4) })));
});
