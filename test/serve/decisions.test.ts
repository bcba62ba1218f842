/**
 * The two decisions of docs/architecture.md about what an endpoint sees and sends: a malformed
 * percent-escape in the path is passed on raw (a mock server shows what the client sent, it does not
 * refuse it), and the JSON charset rule of the door's writer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../helpers/endpoint.js';
import { sentType } from '../../src/serve/index.js';

test('a malformed percent-escape reaches the endpoint raw, in the path form and the host form', async (t) => {
  const app = await useApp(t, { baseDomain: 'mock.test' });
  for (const [url, host] of [
    ['/e/echo/%zz/a%2Fb%?x=%zz', 'localhost'],
    ['/%zz/a%2Fb%?x=%zz', 'echo.mock.test'],
  ] as const) {
    const r = await app.inject({ method: 'GET', url, headers: { host } });
    assert.equal(r.statusCode, 200, r.body);
    const seen = JSON.parse(r.body) as { path: string; parsedQueryParams: Record<string, string> };
    assert.equal(seen.path, '/%zz/a%2Fb%?x=%zz', host);
    assert.deepEqual(seen.parsedQueryParams, { x: '%zz' });
  }
});

test('JSON charset rule: only JSON types of a text body without a charset get utf-8; the rest as written', () => {
  const cases: [string, string][] = [
    ['application/json', 'application/json; charset=utf-8'],
    ['application/problem+json', 'application/problem+json; charset=utf-8'],
    ['Application/Vnd.API+JSON', 'Application/Vnd.API+JSON; charset=utf-8'],
    ['application/json;charset=UTF-8', 'application/json;charset=UTF-8'],
    ['application/json; charset=iso-8859-1', 'application/json; charset=iso-8859-1'],
    ['application/json; Charset = utf-16', 'application/json; Charset = utf-16'],
    ['application/jsonl', 'application/jsonl'],
    ['text/x-json', 'text/x-json'],
    ['text/plain', 'text/plain'],
    ['not a type', 'not a type'],
  ];
  for (const [type, sent] of cases) assert.equal(sentType(type), sent, type);
});
