/**
 * The conformance suite's one assertion: "this answer has the status and shape the contract gives the
 * route", with Ajv's findings printed one per line (where, what, and the value found) when it does not.
 */
import assert from 'node:assert/strict';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { adminAuth, type TestApp } from '../helpers/app.js';
import { ROUTES, SCHEMAS, type SchemaName } from './schemas.js';

// ajv-formats is CommonJS with a default export: under NodeNext it arrives as the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

// strictTypes and strictRequired are off: `then: { required: [...] }` beside a typed `if` is the plain
// way to say "this field exists exactly when", and those checks would ask each branch to repeat `type`
// and `properties`. Unknown keywords and formats still fail (strictSchema).
const ajv = new Ajv({
  allErrors: true,
  strict: true,
  strictTypes: false,
  strictRequired: false,
  allowUnionTypes: true,
  verbose: true, // errors carry their schema: a "must leave out" can name the field
});
addFormats(ajv);

const compiled = new Map<SchemaName, ValidateFunction>();
function validator(name: SchemaName): ValidateFunction {
  let v = compiled.get(name);
  if (!v) {
    v = ajv.compile(SCHEMAS[name]);
    compiled.set(name, v);
  }
  return v;
}

/** Walks a JSON pointer into `doc` to show the offending value. */
function at(doc: unknown, pointer: string): unknown {
  let cur = doc;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function describeError(doc: unknown, e: ErrorObject): string {
  const where = e.instancePath === '' ? '(root)' : e.instancePath;
  const leftOut = (e.parentSchema?.['not'] as { required?: string[] } | undefined)?.required;
  if (e.keyword === 'not' && leftOut) {
    const found = JSON.stringify(at(doc, `${e.instancePath}/${leftOut[0]}`));
    return `  ${where}: must leave out "${leftOut.join('", "')}" here (found ${found})`;
  }
  const extra = e.keyword === 'required' ? ` ${JSON.stringify(e.params)}` : '';
  const found = JSON.stringify(at(doc, e.instancePath)) ?? 'undefined';
  return `  ${where}: ${e.message ?? e.keyword}${extra} (found ${found.length > 120 ? found.slice(0, 117) + '...' : found})`;
}

/** The list of problems (empty when `doc` matches the schema). */
export function problems(name: SchemaName, doc: unknown): string[] {
  const v = validator(name);
  if (v(doc)) return [];
  // if/then and anyOf failures repeat the branch's own findings: keep the findings, drop the summaries.
  const errors = (v.errors ?? []).filter((e) => e.keyword !== 'if' && e.keyword !== 'allOf');
  return [...new Set(errors.map((e) => describeError(doc, e)))];
}

/** Asserts that `doc` matches the schema `name`, listing every mismatch. */
export function assertSchema(name: SchemaName, doc: unknown, context = ''): void {
  const p = problems(name, doc);
  if (p.length > 0) {
    assert.fail(`answer${context ? ' of ' + context : ''} does not match ${name}:\n${p.join('\n')}`);
  }
}

export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers
  body: any;
  text: string;
  headers: Record<string, unknown>;
}

/**
 * Sends what a script would send: the key in `Authorization` (raw by default, as most scripts do),
 * a JSON body when given.
 */
export async function send(
  app: TestApp,
  method: string,
  url: string,
  payload?: unknown,
  headers: Record<string, string> = { authorization: adminAuth.authorization.slice('Bearer '.length) },
): Promise<Answer> {
  const r = await app.inject({
    method: method as 'GET',
    url,
    headers:
      payload !== undefined && typeof payload === 'object' && !Buffer.isBuffer(payload)
        ? { 'content-type': 'application/json', ...headers }
        : headers,
    ...(payload !== undefined ? { payload: payload as string } : {}),
  });
  let body: unknown;
  try {
    body = r.body === '' ? undefined : JSON.parse(r.body);
  } catch {
    body = undefined;
  }
  return { status: r.statusCode, body, text: r.body, headers: r.headers };
}

/**
 * Asserts that an answer to `route` (a key of ROUTES, e.g. `GET /api/v2/endpoints/:ep/rules`) has the
 * route's success status and answer schema; returns the body.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers
export function conforms(route: string, r: Answer): any {
  const contract = ROUTES[route];
  assert.ok(contract, `no contract for route ${route} in test/compat/schemas.ts`);
  assert.equal(r.status, contract.status, `${route}: status ${r.status}, body ${r.text.slice(0, 500)}`);
  if (contract.schema) {
    assert.match(String(r.headers['content-type']), /^application\/json/, `${route}: content-type`);
    assertSchema(contract.schema, r.body, route);
  }
  return r.body;
}

/** Asserts an error answer: status, the documented error shape, and its code. */
export function conformsError(r: Answer, status: number, code: string): void {
  assert.equal(r.status, status, r.text);
  assertSchema(code === 'validation_error' ? 'ValidationError' : 'ErrorBody', r.body, `a ${status}`);
  assert.equal(r.body.error.code, code, r.text);
}
