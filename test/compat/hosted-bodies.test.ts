/**
 * Bodies a script written for the hosted API sends (issue 36): the contract's example bodies are
 * accepted and read back as sent; a callout's header items may carry `templated` and are rendered;
 * `TRACE` is a callout method; state read with GET can be written back with PUT as it was read; an
 * empty `items` list changes nothing; refusals name the field and what it takes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ALLOW_LOOPBACK, startApp, type TestApp } from '../helpers/app.js';
import { send as sendTo, upstream, type Upstream } from '../proxy/proxy-helpers.js';
import { conforms, conformsError, send } from './conformance.js';

let app: TestApp;
let up: Upstream;
const R = '/api/v2/endpoints/shop/rules';
const S = '/api/v2/endpoints/shop/state';
before(async () => {
  app = await startApp({ ...ALLOW_LOOPBACK }, { listen: true });
  up = await upstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('target');
  });
  conforms('POST /api/v2/endpoints', await send(app, 'POST', '/api/v2/endpoints', { name: 'shop' }));
});
after(async () => {
  await up.close();
  await app.stop();
});

/**
 * Every field of `sent` is in `got` with the same value, at every depth; lists keep their length and
 * order (an answer may add the fields the server fills in, such as an action's `delay`).
 */
function assertKept(got: unknown, sent: unknown, where: string): void {
  if (Array.isArray(sent)) {
    assert.ok(Array.isArray(got) && got.length === sent.length, `${where}: ${JSON.stringify(got)}`);
    sent.forEach((v, i) => assertKept((got as unknown[])[i], v, `${where}/${i}`));
  } else if (typeof sent === 'object' && sent !== null) {
    assert.ok(typeof got === 'object' && got !== null, `${where}: ${JSON.stringify(got)}`);
    for (const [k, v] of Object.entries(sent))
      assertKept((got as Record<string, unknown>)[k], v, `${where}/${k}`);
  } else assert.deepEqual(got, sent, where);
}

const examples: Record<string, Record<string, unknown>> = {
  'a path template and a mock action with a templated header': {
    method: 'GET',
    description: 'user by id',
    conditions: [{ type: 'path', operator: 'template', value: '/users/:id' }],
    action: {
      type: 'mock',
      status: 200,
      headers: [{ key: 'x-user', value: "{{pathParam 'id'}}", templated: true }],
      body: '{"id":"{{pathParam \'id\'}}"}',
      templated: true,
      delay: 0,
    },
  },
  'a header condition and a weighted action': {
    conditions: [{ type: 'header', key: 'x-env', operator: 'equals', value: 'prod' }],
    action: {
      type: 'weighted',
      responses: [
        { name: 'ok', weight: 70, status: 200, headers: [], body: 'ok', templated: false, delay: 0 },
        { name: 'busy', weight: 30, status: 503, headers: [], body: 'busy', templated: false, delay: 12.5 },
      ],
    },
  },
  'a callout action whose header items carry templated': {
    method: 'POST',
    conditions: [{ type: 'path', operator: 'equals', value: '/paid' }],
    action: {
      type: 'callout',
      behavior: 'sync',
      callout: {
        url: 'https://hooks.example.com/paid',
        method: 'POST',
        transform: 'custom',
        headers: [
          { key: 'x-order', value: "{{queryParam 'order'}}", templated: true },
          { key: 'x-fixed', value: '{{not rendered}}', templated: false },
        ],
        body: '{"paid":true}',
        templated: false,
        delay: { min: 0, max: 0 },
        connectionId: 'conn-1',
      },
      status: 200,
      headers: [],
      body: '',
      templated: false,
    },
  },
  'a callout sent with TRACE': {
    conditions: [{ type: 'path', operator: 'equals', value: '/trace' }],
    action: {
      type: 'callout',
      behavior: 'sync',
      callout: { url: 'https://hooks.example.com/t', method: 'TRACE' },
    },
  },
  'a state condition under a short operator name and a CRUD action': {
    conditions: [
      { type: 'path', operator: 'starts_with', value: '/products' },
      { type: 'state', key: 'visits', stateType: 'counter', operator: 'gte', value: '3' },
    ],
    action: { type: 'crud', idField: 'sku' },
  },
};

for (const [name, rule] of Object.entries(examples)) {
  test(`the example body is accepted and read back as sent: ${name}`, async () => {
    const created = conforms('POST /api/v2/endpoints/:ep/rules', await send(app, 'POST', R, rule));
    const read = conforms(
      'GET /api/v2/endpoints/:ep/rules/:ruleId',
      await send(app, 'GET', `${R}/${created.id}`),
    );
    assertKept(read, rule, name);
    await send(app, 'DELETE', `${R}/${created.id}`);
  });
}

test("a callout's templated header item is rendered, the others sent as written; TRACE goes as TRACE", async () => {
  const rule = {
    conditions: [{ type: 'path', operator: 'equals', value: '/pay' }],
    action: {
      type: 'callout',
      behavior: 'sync',
      callout: {
        url: `${up.url}/hook`,
        method: 'POST',
        transform: 'custom',
        headers: [
          { key: 'x-order', value: "{{queryParam 'order'}}", templated: true },
          { key: 'x-fixed', value: '{{queryParam "order"}}' },
        ],
        body: 'paid',
      },
    },
  };
  const pay = conforms('POST /api/v2/endpoints/:ep/rules', await send(app, 'POST', R, rule));
  const trace = conforms(
    'POST /api/v2/endpoints/:ep/rules',
    await send(app, 'POST', R, {
      conditions: [{ type: 'path', operator: 'equals', value: '/trace' }],
      action: { type: 'callout', behavior: 'sync', callout: { url: `${up.url}/t`, method: 'TRACE' } },
    }),
  );
  const r = await sendTo(`${app.url}/e/shop/pay?order=A-17`, { method: 'POST', body: 'x' });
  assert.equal(r.status, 200);
  const seen = up.seen.at(-1)!;
  assert.equal(seen.headers['x-order'], 'A-17');
  assert.equal(seen.headers['x-fixed'], '{{queryParam "order"}}');
  const t = await sendTo(`${app.url}/e/shop/trace`);
  assert.equal(t.status, 200);
  assert.equal(up.seen.at(-1)!.method, 'TRACE');
  for (const id of [pay.id, trace.id]) await send(app, 'DELETE', `${R}/${id}`);
});

test('state read with GET is written back with PUT as it was read (lastModified ignored)', async () => {
  conforms(
    'PUT /api/v2/endpoints/:ep/state',
    await send(app, 'PUT', S, { items: [{ type: 'counter', key: 'stock', value: 5 }] }),
  );
  const read = conforms('GET /api/v2/endpoints/:ep/state', await send(app, 'GET', S));
  const items = read.data.map((i: { value: unknown; key: string }) =>
    i.key === 'stock' ? { ...i, value: 4 } : i,
  );
  assert.ok(items.every((i: { lastModified?: unknown }) => typeof i.lastModified === 'number'));
  const written = conforms('PUT /api/v2/endpoints/:ep/state', await send(app, 'PUT', S, { items }));
  assert.deepEqual([written.created, written.updated], [0, items.length]);
  const one = conforms(
    'GET /api/v2/endpoints/:ep/state/:type/:key',
    await send(app, 'GET', `${S}/counter/stock`),
  );
  assert.equal(one.value, 4);
});

test('an empty items list changes nothing, on PUT and on DELETE', async () => {
  const before = conforms('GET /api/v2/endpoints/:ep/state', await send(app, 'GET', S)).pagination.total;
  const put = conforms('PUT /api/v2/endpoints/:ep/state', await send(app, 'PUT', S, { items: [] }));
  assert.deepEqual([put.created, put.updated], [0, 0]);
  const del = conforms('DELETE /api/v2/endpoints/:ep/state', await send(app, 'DELETE', S, { items: [] }));
  assert.equal(del.count, 0);
  assert.equal(
    conforms('GET /api/v2/endpoints/:ep/state', await send(app, 'GET', S)).pagination.total,
    before,
  );
});

test('refusals name the field and what it takes', async () => {
  const refused = async (method: string, url: string, body: unknown): Promise<string> => {
    const r = await send(app, method, url, body);
    conformsError(r, 400, 'validation_error');
    return r.body.error.message as string;
  };
  assert.equal(await refused('DELETE', S, { all: false }), '/all: Expected true');
  assert.equal(await refused('DELETE', S, {}), '/: Expected an object with "all" or an object with "items"');
  assert.equal(
    await refused('PUT', S, { items: [{ type: 'counter', key: 'n', value: -1 }] }),
    '/items/0/value: A counter set through the API is a whole number from 0',
  );
  const method = await refused('POST', R, {
    conditions: [{ type: 'path', operator: 'equals', value: '/x' }],
    action: { type: 'callout', behavior: 'sync', callout: { url: 'https://h.example.com', method: 'BREW' } },
  });
  assert.match(method, /^\/action\/callout\/method: Expected one of: GET, .*TRACE, \*$/);
});
