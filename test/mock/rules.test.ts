/**
 * Rules answering over HTTP (SPEC §5 step 3): the hosted service's own example, first match wins,
 * `rules.enabled`, what the history records, weighted choice, repeated and templated headers,
 * delays, templates, 561 and the header-injection guard.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { endpointRequest, type EndpointRequestOptions } from '../helpers/endpoint.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import { pickWeighted } from '../../src/mock/index.js';

let app: TestApp;
let n = 0;
before(async () => {
  app = await startApp();
});
after(async () => {
  await app.stop();
});

async function endpoint(rules: unknown[]): Promise<string> {
  const name = `rules-${++n}`;
  await createEndpoint(app, name);
  for (const r of rules) {
    const res = await call(app, 'POST', `/endpoints/${name}/rules`, r);
    assert.equal(res.status, 201, res.text);
  }
  return name;
}

const send = (ep: string, url: string, opts: EndpointRequestOptions = {}) =>
  endpointRequest(app, ep, url, opts);

async function lastEntry(ep: string) {
  await app.ctx.history.flush();
  return (await app.ctx.store.listHistory(ep, {}, 1)).data[0]!;
}

test('the hosted service\'s example: GET /simple-rule answers 200 {"status": "Awesome!"}', async () => {
  const ep = await endpoint([
    {
      method: 'GET',
      conditions: [{ type: 'path', operator: 'equals', value: '/simple-rule' }],
      action: { type: 'mock', status: 200, body: '{"status": "Awesome!"}' },
    },
  ]);
  const r = await send(ep, '/simple-rule');
  assert.equal(r.statusCode, 200);
  assert.deepEqual(JSON.parse(r.body), { status: 'Awesome!' });
  assert.match(String(r.headers['content-type']), /^application\/json/);
  const entry = await lastEntry(ep);
  const ruleId = (await call(app, 'GET', `/endpoints/${ep}/rules`)).body.data[0].id as string;
  assert.equal(entry.behavior, 'mock-rule');
  assert.equal(entry.ruleId, ruleId);
  assert.equal(entry.ruleMatched, true);
  const listed = await call(app, 'GET', `/endpoints/${ep}/requests?limit=1`);
  assert.deepEqual(listed.body.data[0].rule, { matched: true, ruleId });
  // No rule for another path: the default answer, recorded as such.
  const other = await send(ep, '/other');
  assert.match(other.body, /nothing configured/);
  assert.equal((await lastEntry(ep)).behavior, 'default');
});

test('first match wins; rules.enabled: false skips every rule; a disabled rule is skipped', async () => {
  const ep = await endpoint([
    {
      enabled: false,
      conditions: [{ type: 'path', operator: 'starts_with', value: '/x' }],
      action: { type: 'mock', status: 201 },
    },
    {
      conditions: [{ type: 'path', operator: 'starts_with', value: '/x' }],
      action: { type: 'mock', status: 202 },
    },
    {
      conditions: [{ type: 'path', operator: 'equals', value: '/x/y' }],
      action: { type: 'mock', status: 203 },
    },
  ]);
  assert.equal((await send(ep, '/x/y')).statusCode, 202);
  await call(app, 'PATCH', `/endpoints/${ep}/settings`, { rules: { enabled: false } });
  const r = await send(ep, '/x/y');
  assert.equal(r.statusCode, 200);
  assert.equal((await lastEntry(ep)).behavior, 'default');
  await call(app, 'PATCH', `/endpoints/${ep}/settings`, { rules: { enabled: true } });
  assert.equal((await send(ep, '/x/y')).statusCode, 202);
});

test('a rule changed or deleted through the API answers at the next request', async () => {
  const ep = await endpoint([
    {
      conditions: [{ type: 'path', operator: 'equals', value: '/v' }],
      action: { type: 'mock', body: 'one' },
    },
  ]);
  assert.equal((await send(ep, '/v')).body, 'one');
  const id = (await call(app, 'GET', `/endpoints/${ep}/rules`)).body.data[0].id as string;
  await call(app, 'PATCH', `/endpoints/${ep}/rules/${id}`, { action: { type: 'mock', body: 'two' } });
  assert.equal((await send(ep, '/v')).body, 'two');
  await call(app, 'DELETE', `/endpoints/${ep}/rules/${id}`);
  assert.match((await send(ep, '/v')).body, /nothing configured/);
});

test('repeated header items are sent as separate lines; a rule content-type wins over the default', async () => {
  const ep = await endpoint([
    {
      conditions: [{ type: 'path', operator: 'equals', value: '/c' }],
      action: {
        type: 'mock',
        status: 201,
        headers: [
          { key: 'Set-Cookie', value: 'a=1' },
          { key: 'set-cookie', value: 'b=2' },
          { key: 'content-type', value: 'text/csv' },
        ],
        body: 'a,b',
      },
    },
  ]);
  const r = await send(ep, '/c');
  assert.equal(r.statusCode, 201);
  assert.deepEqual(r.headers['set-cookie'], ['a=1', 'b=2']);
  assert.equal(r.headers['content-type'], 'text/csv');
  assert.deepEqual((await lastEntry(ep)).responseHeaders['set-cookie'], ['a=[REDACTED]', 'b=[REDACTED]']);
});

test('weighted: 10,000 draws fall within 2 % of the weights; the chosen name is recorded', async () => {
  const weights = [70, 20, 10];
  const counts = [0, 0, 0];
  for (let i = 0; i < 10_000; i++) counts[pickWeighted(weights, Math.random())]!++;
  counts.forEach((c, i) =>
    assert.ok(Math.abs(c / 100 - weights[i]!) <= 2, `${c} draws for weight ${weights[i]}`),
  );
  assert.equal(pickWeighted([0, 100], 0), 1);
  assert.equal(pickWeighted([50, 50], 0.999999), 1);
  const ep = await endpoint([
    {
      conditions: [{ type: 'path', operator: 'equals', value: '/w' }],
      action: {
        type: 'weighted',
        responses: [
          { name: 'ok', weight: 100, status: 200, body: 'fine' },
          { name: 'never', weight: 0, status: 500 },
        ],
      },
    },
  ]);
  assert.equal((await send(ep, '/w')).statusCode, 200);
  const entry = await lastEntry(ep);
  assert.equal(entry.responseName, 'ok');
  const listed = await call(app, 'GET', `/endpoints/${ep}/requests?limit=1`);
  assert.equal(listed.body.data[0].responseName, 'ok');
});

test('delay: the answer waits (fractions rounded)', async () => {
  const ep = await endpoint([
    {
      conditions: [{ type: 'path', operator: 'equals', value: '/slow' }],
      action: { type: 'mock', delay: 80.4 },
    },
  ]);
  const started = Date.now();
  await send(ep, '/slow');
  assert.ok(Date.now() - started >= 75);
});

test('templates: request data through helpers, fake data, templated header items', async () => {
  const ep = await endpoint([
    {
      method: 'POST',
      conditions: [{ type: 'path', operator: 'template', value: '/users/:id' }],
      action: {
        type: 'mock',
        templated: true,
        headers: [
          { key: 'x-user', value: 'u-{{pathParam "id"}}', templated: true },
          { key: 'x-raw', value: '{{pathParam "id"}}' },
        ],
        body: '{"id":"{{pathParam \'id\'}}","x":"{{queryParam \'x\'}}","name":"{{body \'user.name\'}}","first":"{{faker \'name.firstName\'}}","m":"{{method}}"}',
      },
    },
  ]);
  const r = await send(ep, '/users/42?x=abc', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    payload: '{"user":{"name":"Ada"}}',
  });
  assert.equal(r.statusCode, 200, r.body);
  const doc = JSON.parse(r.body) as Record<string, string>;
  assert.equal(doc['id'], '42');
  assert.equal(doc['x'], 'abc');
  assert.equal(doc['name'], 'Ada');
  assert.equal(doc['m'], 'POST');
  assert.match(doc['first']!, /^\p{L}[\p{L}' -]*$/u);
  assert.equal(r.headers['x-user'], 'u-42');
  assert.equal(r.headers['x-raw'], '{{pathParam "id"}}', 'not templated unless the item says so');
});

test('templating is off unless asked: {{…}} is sent as written', async () => {
  const ep = await endpoint([
    {
      conditions: [{ type: 'path', operator: 'equals', value: '/plain' }],
      action: { type: 'mock', body: '{{method}}' },
    },
  ]);
  assert.equal((await send(ep, '/plain')).body, '{{method}}');
});

test('template problems are recorded with the request; the response is still produced', async () => {
  const ep = await endpoint([
    {
      conditions: [{ type: 'path', operator: 'equals', value: '/p' }],
      action: { type: 'mock', templated: true, body: 'a{{nope}}b {{#if}} c' },
    },
  ]);
  const r = await send(ep, '/p');
  assert.equal(r.statusCode, 200);
  assert.equal(r.body, 'a{{nope}}b {{#if}} c'.replace('{{nope}}', ''));
  const entry = await lastEntry(ep);
  assert.ok(
    entry.problems.some((p) => /unknown helper "nope"/.test(p)),
    JSON.stringify(entry.problems),
  );
  assert.ok(
    entry.problems.some((p) => /syntax error on line 1/.test(p)),
    JSON.stringify(entry.problems),
  );
});

test('561 text/plain when no response can be produced: a loop over its budget answers fast', async () => {
  const ep = await endpoint([
    {
      conditions: [{ type: 'path', operator: 'equals', value: '/bomb' }],
      action: { type: 'mock', templated: true, body: '{{#repeat 100000000}}x{{/repeat}}' },
    },
  ]);
  const started = Date.now();
  const r = await send(ep, '/bomb');
  assert.ok(Date.now() - started < 2000);
  assert.equal(r.statusCode, 561);
  assert.match(String(r.headers['content-type']), /^text\/plain/);
  assert.match(r.body, /loop iterations/);
});

test('header injection: a rendered header value with CR/LF is left out and noted', async () => {
  const ep = await endpoint([
    {
      conditions: [{ type: 'path', operator: 'equals', value: '/inject' }],
      action: {
        type: 'mock',
        headers: [{ key: 'x-echo', value: '{{queryParam "v"}}', templated: true }],
        body: 'ok',
      },
    },
  ]);
  const r = await send(ep, '/inject?v=a%0d%0aSet-Cookie:%20evil=1');
  assert.equal(r.statusCode, 200);
  assert.equal(r.headers['x-echo'], undefined);
  assert.equal(r.headers['set-cookie'], undefined);
  assert.ok((await lastEntry(ep)).problems.some((p) => /line break/.test(p)));
  assert.equal((await send(ep, '/inject?v=fine')).headers['x-echo'], 'fine');
});
