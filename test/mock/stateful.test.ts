/**
 * Stateful mocks over HTTP (SPEC §4 `state` condition, §6 state helpers), on SQLite and on PostgreSQL
 * (DATABASE_URL; skipped without it): a cart (items pushed, a templated total, a state condition that
 * switches the answer after N calls), a login lock-out (`greater_than` on a counter), 1,000 parallel
 * requests on one counter, every helper operation, and the bounds.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { freshPgDatabase, pgSkip, suiteOrSkip } from '../helpers/pg.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';

const backends = [
  { name: 'sqlite', skip: false as const, db: async () => ({ url: undefined, drop: async () => undefined }) },
  { name: 'postgres', skip: pgSkip, db: freshPgDatabase },
];

for (const backend of backends) {
  suiteOrSkip(`stateful mocks on ${backend.name}`, backend.skip, () => {
    let app: TestApp;
    let drop: () => Promise<void>;
    let n = 0;
    before(async () => {
      const db = await backend.db();
      drop = db.drop;
      app = await startApp({
        ...(db.url ? { databaseUrl: db.url } : {}),
        stateMaxItems: 5,
        stateMaxList: 3,
        stateMaxValue: 200,
      });
    });
    after(async () => {
      await app?.stop();
      await drop?.();
    });

    async function endpoint(rules: unknown[]): Promise<string> {
      const name = `state-${backend.name}-${++n}`;
      await createEndpoint(app, name);
      for (const r of rules) {
        const res = await call(app, 'POST', `/endpoints/${name}/rules`, r);
        assert.equal(res.status, 201, res.text);
      }
      return name;
    }

    const send = (ep: string, method: string, url: string, body?: unknown) =>
      app.inject({
        method: method as 'GET',
        url: `/e/${ep}${url}`,
        ...(body !== undefined
          ? { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
          : {}),
      });

    const mock = (method: string, path: string, body: string, extra: Record<string, unknown> = {}) => ({
      method,
      conditions: [{ type: 'path', operator: 'equals', value: path }],
      action: { type: 'mock', status: 200, body, templated: true, ...extra },
    });

    test('cart: items pushed by POST, a templated total, and a state condition that says "full" after 3 items', async () => {
      const ep = await endpoint([
        {
          method: 'POST',
          conditions: [
            { type: 'path', operator: 'equals', value: '/cart/items' },
            { type: 'state', key: 'cart', stateType: 'list', operator: 'gte', value: '3' },
          ],
          action: { type: 'mock', status: 409, body: '{"error":"cart full"}' },
        },
        mock(
          'POST',
          '/cart/items',
          `{{list 'push' 'cart' (body 'name')}}{"total":{{step-counter 'inc' 'total' (body 'price')}},"items":{{list 'length' 'cart'}} }`,
          { status: 201 },
        ),
        mock('GET', '/cart', `{"items":{{{list 'get' 'cart'}}},"total":{{step-counter 'get' 'total'}} }`),
        mock('DELETE', '/cart/last', `{"removed":"{{list 'pop' 'cart'}}"}`),
      ]);
      assert.deepEqual(JSON.parse((await send(ep, 'GET', '/cart')).body), { items: [], total: 0 });
      const added = [];
      for (const item of [
        { name: 'apple', price: 3 },
        { name: 'pear', price: 4 },
        { name: 'fig', price: 5 },
      ]) {
        const r = await send(ep, 'POST', '/cart/items', item);
        assert.equal(r.statusCode, 201, r.body);
        added.push(JSON.parse(r.body).items);
      }
      assert.deepEqual(added, [1, 2, 3]);
      assert.deepEqual(JSON.parse((await send(ep, 'GET', '/cart')).body), {
        items: ['apple', 'pear', 'fig'],
        total: 12,
      });
      const full = await send(ep, 'POST', '/cart/items', { name: 'kiwi', price: 1 });
      assert.equal(full.statusCode, 409);
      assert.deepEqual(JSON.parse((await send(ep, 'DELETE', '/cart/last')).body), { removed: 'fig' });
      assert.equal((await send(ep, 'POST', '/cart/items', { name: 'kiwi', price: 1 })).statusCode, 201);
      const state = await call(app, 'GET', `/endpoints/${ep}/state/list/cart`);
      assert.deepEqual(state.body.value, ['apple', 'pear', 'kiwi']);
    });

    test('login lock-out: after 3 failures (greater_than 2 on a counter) the account answers 423; a success resets', async () => {
      const ep = await endpoint([
        {
          method: 'POST',
          conditions: [
            { type: 'path', operator: 'equals', value: '/login' },
            { type: 'state', key: 'failures', stateType: 'counter', operator: 'greater_than', value: '2' },
          ],
          action: { type: 'mock', status: 423, body: '{"error":"locked"}' },
        },
        {
          method: 'POST',
          conditions: [
            { type: 'path', operator: 'equals', value: '/login' },
            { type: 'body_param', key: 'password', operator: 'equals', value: 'secret' },
          ],
          action: {
            type: 'mock',
            status: 200,
            body: `{"ok":true,"failures":{{step-counter 'reset' 'failures'}} }`,
            templated: true,
          },
        },
        mock('POST', '/login', `{"ok":false,"failures":{{step-counter 'inc' 'failures'}} }`, { status: 401 }),
      ]);
      const login = (password: string) => send(ep, 'POST', '/login', { password });
      assert.equal((await login('nope')).statusCode, 401);
      assert.equal((await login('secret')).body, '{"ok":true,"failures":0 }');
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push((await login('nope')).statusCode);
      assert.deepEqual(codes, [401, 401, 401, 423]);
      assert.equal((await login('secret')).statusCode, 423, 'locked even with the right password');
      await call(app, 'DELETE', `/endpoints/${ep}/state/counter/failures`);
      assert.equal((await login('secret')).statusCode, 200);
    });

    test('1,000 requests at once on one counter: each sees its own value and the counter reads 1,000', async () => {
      const ep = await endpoint([mock('GET', '/hit', `{{step-counter 'inc' 'hits'}}`)]);
      const started = Date.now();
      const answers = await Promise.all(Array.from({ length: 1000 }, () => send(ep, 'GET', '/hit')));
      const values = answers.map((r) => Number(r.body)).sort((a, b) => a - b);
      assert.deepEqual(
        values,
        Array.from({ length: 1000 }, (_, i) => i + 1),
      );
      const read = await call(app, 'GET', `/endpoints/${ep}/state/counter/hits`);
      assert.equal(read.body.value, 1000);
      assert.ok(Date.now() - started < 20_000);
      // The history of 1,000 requests is written before the next test changes rules.
      await app.ctx.history.flush();
    });

    test('helper operations: dec, reset to a value, data-store get/set/delete with objects and defaults, list clear', async () => {
      const ep = await endpoint([
        mock(
          'POST',
          '/ops',
          [
            `{{step-counter 'inc' 'c' 5}} {{step-counter 'dec' 'c'}} {{step-counter 'dec' 'c' 2}} {{step-counter 'reset' 'c' 10}} {{step-counter 'get' 'c'}}`,
            `{{data-store 'set' 'user' (body 'user')}}{{{data-store 'get' 'user'}}} {{data-store 'get' 'none' 'dflt'}}`,
            `{{#if (eq (data-store 'get' 'mode') 'on')}}on{{else}}off{{/if}}{{data-store 'set' 'mode' 'on'}}`,
            `{{list 'push' 'l' 1}}{{list 'push' 'l' 2}}{{list 'clear' 'l'}}{{list 'length' 'l'}}`,
            `{{data-store 'delete' 'user'}}[{{data-store 'get' 'user'}}]`,
          ].join('\n'),
        ),
      ]);
      const r = await send(ep, 'POST', '/ops', { user: { name: 'Ada', id: 1 } });
      assert.equal(r.body, '5 4 2 10 10\n{"name":"Ada","id":1} dflt\noff\n0\n[]');
      const again = await send(ep, 'POST', '/ops', { user: { name: 'Ada', id: 1 } });
      assert.match(again.body, /^15 14 12 10 10\n.*\non\n/);
      const mode = await call(app, 'GET', `/endpoints/${ep}/state/string/mode`);
      assert.equal(mode.body.value, 'on');
      assert.equal((await call(app, 'GET', `/endpoints/${ep}/state/string/user`)).status, 404);
    });

    test('a computed name reads the whole state; a bad operation or a bound renders empty and is recorded', async () => {
      const ep = await endpoint([
        mock('GET', '/get', `[{{data-store 'get' (queryParam 'k')}}]`),
        mock('POST', '/push', `{{list 'push' 'l' (body 'v')}}{{list 'length' 'l'}}`),
        mock('GET', '/bad', `[{{step-counter 'jump' 'c'}}][{{step-counter 'inc' 'c' 'x'}}]`),
      ]);
      await call(app, 'PUT', `/endpoints/${ep}/state`, {
        items: [{ type: 'string', key: 'color', value: 'red' }],
      });
      assert.equal((await send(ep, 'GET', '/get?k=color')).body, '[red]');
      // STATE_MAX_LIST is 3 here: the 4th push is refused, the list stays at 3.
      const lengths = [];
      for (let i = 0; i < 4; i++) lengths.push((await send(ep, 'POST', '/push', { v: i })).body);
      assert.deepEqual(lengths, ['1', '2', '3', '3']);
      // STATE_MAX_VALUE is 200 bytes: a value past it is refused.
      const big = await send(ep, 'POST', '/push', { v: 'x'.repeat(300) });
      assert.equal(big.body, '3');
      const bad = await send(ep, 'GET', '/bad');
      assert.equal(bad.body, '[][]');
      await app.ctx.history.flush();
      const entry = (await app.ctx.store.listHistory(ep, {}, 1)).data[0]!;
      assert.ok(entry.problems.some((p) => /step-counter: the operation is inc, dec, get or reset/.test(p)));
      assert.ok(entry.problems.some((p) => /the amount is a whole number/.test(p)));
    });

    test('STATE_MAX_ITEMS (5 here): items 4 and 5 are made, the 6th is refused', async () => {
      const ep = await endpoint([mock('GET', '/new', `[{{step-counter 'inc' (queryParam 'k')}}]`)]);
      await call(app, 'PUT', `/endpoints/${ep}/state`, {
        items: ['a', 'b', 'c'].map((key) => ({ type: 'counter', key, value: 0 })),
      });
      assert.equal((await send(ep, 'GET', '/new?k=d')).body, '[1]');
      assert.equal((await send(ep, 'GET', '/new?k=e')).body, '[1]');
      assert.equal((await send(ep, 'GET', '/new?k=f')).body, '[]');
      assert.equal((await send(ep, 'GET', '/new?k=a')).body, '[1]', 'an existing item still changes');
      assert.equal((await call(app, 'GET', `/endpoints/${ep}/state`)).body.pagination.total, 5);
    });
  });
}
