/** Helpers for the management-API tests: JSON calls through inject(), endpoints, keys and rules. */
import assert from 'node:assert/strict';
import { adminAuth, type TestApp } from './app.js';

export interface Res {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers
  body: any;
  headers: Record<string, unknown>;
  text: string;
}

/** Calls the API with a key (admin by default; null: none) and parses the JSON answer. */
export async function call(
  app: TestApp,
  method: string,
  path: string,
  payload?: unknown,
  key: string | null = adminAuth.authorization,
): Promise<Res> {
  const headers: Record<string, string> = {};
  if (key !== null) headers['authorization'] = key;
  const r = await app.inject({
    method: method as 'GET',
    url: path.startsWith('/api/') ? path : `/api/v2${path}`,
    headers,
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });
  let body: unknown;
  try {
    body = r.body === '' ? undefined : JSON.parse(r.body);
  } catch {
    body = undefined;
  }
  return { status: r.statusCode, body, headers: r.headers, text: r.body };
}

/** Creates an endpoint and asserts 201. */
export async function createEndpoint(app: TestApp, name: string): Promise<void> {
  const r = await call(app, 'POST', '/endpoints', { name });
  assert.equal(r.status, 201, r.text);
}

/** Creates a key scoped to `endpoint` and returns its Authorization value. */
export async function scopedKey(app: TestApp, endpoint: string): Promise<string> {
  const r = await call(app, 'POST', '/keys', { endpoint });
  assert.equal(r.status, 201, r.text);
  return r.body.key as string;
}

/** A minimal valid rule answering `status` on GET `path`. */
export function mockRule(path: string, status = 200, extra: Record<string, unknown> = {}) {
  return {
    method: 'GET',
    conditions: [{ type: 'path', operator: 'equals', value: path }],
    action: { type: 'mock', status, body: `rule ${path}` },
    ...extra,
  };
}

/** Creates a rule and returns its id. */
export async function createRule(app: TestApp, ep: string, rule: unknown): Promise<string> {
  const r = await call(app, 'POST', `/endpoints/${ep}/rules`, rule);
  assert.equal(r.status, 201, r.text);
  return r.body.id as string;
}

/** The ids of an endpoint's rules, in order. */
export async function ruleIds(app: TestApp, ep: string): Promise<string[]> {
  const r = await call(app, 'GET', `/endpoints/${ep}/rules`);
  assert.equal(r.status, 200, r.text);
  return (r.body.data as { id: string }[]).map((x) => x.id);
}

/** Asserts a 400 validation_error that has a detail at `path` (and, if given, `received`). */
export function assertDetail(r: Res, path: string, received?: string): void {
  assert.equal(r.status, 400, r.text);
  assert.equal(r.body.error.code, 'validation_error');
  const d = (r.body.error.details as { path: string; received?: string }[]).find((x) => x.path === path);
  assert.ok(d, `no detail at ${path}: ${r.text}`);
  if (received !== undefined) assert.equal(d.received, received);
}

/** Asserts the error code (and status) of an answer. */
export function assertError(r: Res, status: number, code: string): void {
  assert.equal(r.status, status, r.text);
  assert.equal(r.body.error.code, code, r.text);
}
