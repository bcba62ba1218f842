/**
 * The route table of schemas.ts against the server's own OpenAPI document: every operation the API
 * publishes has a contract here (so a new route cannot go unchecked), and every contracted route is served.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { send } from './conformance.js';
import { ROUTES, SCHEMAS } from './schemas.js';

/**
 * Mockingbird's own operations, not part of the hosted API: the document itself, the tunnel's
 * WebSocket, the dashboard's template preview and its session, the instance's health, the HAR import.
 */
const OWN = new Set([
  'GET /api/v2/openapi.json',
  'GET /api/v2/docs',
  'GET /api/v2/endpoints/:ep/tunnel',
  'POST /api/v2/endpoints/:ep/templates/preview',
  'POST /api/v2/session',
  'DELETE /api/v2/session',
  'GET /api/v2/health',
  'POST /api/v2/endpoints/:ep/import/har',
]);

let app: TestApp;
let published: Set<string>;
before(async () => {
  app = await startApp();
  const doc = (await send(app, 'GET', '/api/v2/openapi.json')).body as { paths: Record<string, object> };
  published = new Set();
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const method of Object.keys(ops)) {
      published.add(`${method.toUpperCase()} /api/v2${path.replace(/\{(\w+)\}/g, ':$1')}`);
    }
  }
});
after(async () => {
  await app.stop();
});

/** The contracted routes under /api/v2, without the query-string variants of the history routes. */
function contracted(filter: (route: string) => boolean): string[] {
  return Object.keys(ROUTES).filter((r) => r.includes(' /api/v2/') && !r.includes('?') && filter(r));
}

test('every operation the API publishes has a contract in schemas.ts', () => {
  const missing = [...published].filter((r) => !OWN.has(r) && !(r in ROUTES));
  assert.deepEqual(missing, [], 'routes without a contract');
});

test('every contracted route is served (mTLS certificates aside)', () => {
  const missing = contracted((r) => !r.includes('/mtls/')).filter((r) => !published.has(r));
  assert.deepEqual(missing, [], 'contracted routes the API does not publish');
});

test('the TLS client-certificate routes are served', () => {
  const missing = contracted((r) => r.includes('/mtls/')).filter((r) => !published.has(r));
  assert.deepEqual(missing, [], 'contracted routes the API does not publish');
});

test('every route names a schema that exists', () => {
  for (const [route, c] of Object.entries(ROUTES)) {
    if (c.schema !== null) assert.ok(c.schema in SCHEMAS, route);
  }
});
