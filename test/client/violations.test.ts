/**
 * `expectNoViolations` of the typed client against a live server on port 0 (SPEC §7): it passes when
 * no request broke the OpenAPI document, throws naming each failed request and violation when one
 * did, takes a matcher like `expectRequest`, and keeps its message bounded. The entries are written
 * through the store, as the OpenAPI check would record them.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ContractViolationError, Mockingbird } from '../../src/client/index.js';
import { MAX_LISTED } from '../../src/client/violations.js';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app.js';
import { entry } from '../helpers/history-fixtures.js';

let app: TestApp;
let mb: Mockingbird;
before(async () => {
  app = await startApp({}, { listen: true });
  mb = new Mockingbird({ baseUrl: app.url, apiKey: ADMIN_KEY });
});
after(async () => app.stop());

let t0 = Date.now() - 60_000;
const at = () => (t0 += 10);

test('passes when nothing was checked, and when every checked request and answer kept the contract', async () => {
  const ep = await mb.ensureEndpoint('contract-clean');
  await ep.expectNoViolations();
  await app.ctx.store.insertHistory([
    entry('contract-clean', { createdAt: at(), path: '/unchecked' }),
    entry('contract-clean', { createdAt: at(), path: '/pets', validation: [], responseValidation: [] }),
  ]);
  await ep.expectNoViolations();
  // The entry type carries the lists as the server sends them.
  const [kept] = (await ep.requests({ validation: 'passed' })).data;
  assert.deepEqual(kept?.validation, []);
});

test('throws naming the request (method, path, status) and each violation of the request and the answer', async () => {
  const ep = await mb.ensureEndpoint('contract-broken');
  await app.ctx.store.insertHistory([
    entry('contract-broken', { createdAt: at(), path: '/fine', validation: [] }),
    entry('contract-broken', {
      createdAt: at(),
      method: 'POST',
      path: '/pets?limit=x',
      status: 201,
      validation: [
        { in: 'query', path: 'limit', message: 'must be integer' },
        { in: 'content-type', path: '', message: 'text/plain is not one of application/json' },
      ],
      responseValidation: [{ in: 'body', path: '/id', message: 'must be string' }],
    }),
  ]);
  const err: unknown = await ep.expectNoViolations().then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof ContractViolationError, String(err));
  assert.ok(err instanceof Error);
  assert.equal(
    err.message,
    [
      '1 request to "contract-broken" broke its OpenAPI document:',
      '  POST /pets?limit=x → 201',
      '    request query "limit": must be integer',
      '    request content-type: text/plain is not one of application/json',
      '    response body "/id": must be string',
    ].join('\n'),
  );
  assert.equal(err.entries.length, 1);
  assert.equal(err.entries[0]?.path, '/pets?limit=x');
  // A matcher narrows what is checked, as expectRequest's does.
  await ep.expectNoViolations({ path: '/fine' });
  await assert.rejects(ep.expectNoViolations({ method: 'POST' }), ContractViolationError);
});

test('a violation of the answer alone fails it too', async () => {
  const ep = await mb.ensureEndpoint('contract-answer');
  await app.ctx.store.insertHistory([
    entry('contract-answer', {
      createdAt: at(),
      path: '/pets/1',
      validation: [],
      responseValidation: [{ in: 'status', path: '', message: '418 is not a documented status' }],
    }),
  ]);
  await assert.rejects(ep.expectNoViolations(), /GET \/pets\/1 → 200\n {4}response status: 418 is not/);
});

test(`the message lists at most ${MAX_LISTED} requests, oldest first, and counts the rest`, async () => {
  const ep = await mb.ensureEndpoint('contract-many');
  const bad = [{ in: 'query', path: 'q', message: 'bad' }];
  await app.ctx.store.insertHistory(
    Array.from({ length: MAX_LISTED + 3 }, (_, i) =>
      entry('contract-many', { createdAt: at(), path: `/r${i}`, validation: bad }),
    ),
  );
  const err = await ep.expectNoViolations().then(
    () => assert.fail('no error'),
    (e: unknown) => e as ContractViolationError,
  );
  assert.equal(err.entries.length, MAX_LISTED + 3);
  const listed = err.message.split('\n').filter((l) => /^ {2}GET /.test(l));
  assert.equal(listed.length, MAX_LISTED);
  assert.equal(listed[0], '  GET /r0 → 200');
  assert.match(err.message, /\n {2}… and 3 more$/);
  assert.match(err.message, new RegExp(`^${MAX_LISTED + 3} requests to "contract-many"`));
});
