/**
 * Every generated answer is valid against its schema (issue 35 item 3): each OpenAPI document under
 * test/fixtures/openapi (the OAI examples, a document of patterns; README there) and the documents of
 * the other OpenAPI tests is uploaded with `intelligenceMock`, every response of every operation with
 * a JSON schema is asked for several times (`Prefer: code=…`), and each body is checked with ajv (its
 * formats too) against the schema the document gives it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import addFormatsModule from 'ajv-formats';
import { startApp, type TestApp } from '../helpers/app.js';
import { createEndpoint } from '../helpers/api-helpers.js';
import { readDocument } from '../../src/oas/document.js';
import { DocumentSchemas, pointer } from '../../src/oas/json-schema.js';
import { isObject, resolvePointer, type JsonObject } from '../../src/oas/refs.js';
import { PETSTORE_30_YAML, STORE_20, USERS_31 } from './fixtures.js';
import { bigSpec } from './big-spec.js';
import { hit, uploadSpec } from './oas-helpers.js';

// ajv-formats is CommonJS with a default export: under NodeNext it arrives as the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** Answers asked for each response: the generator draws afresh each time. */
const DRAWS = 5;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** The documents whose operations answer no JSON schema (nothing generated to check). */
const NO_SCHEMAS = [
  'oai-v2.0-api-with-examples.yaml',
  'oai-v3.0-api-with-examples.yaml',
  'oai-v3.1-non-oauth-scopes.json',
  'oai-v3.1-webhook-example.json',
];
const FIXTURES = new URL('../fixtures/openapi/', import.meta.url);

const documents: [string, string][] = [
  ...readdirSync(FIXTURES)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort()
    .map((f): [string, string] => [f, readFileSync(new URL(f, FIXTURES), 'utf8')]),
  ['fixtures.ts PETSTORE_30_YAML', PETSTORE_30_YAML],
  ['fixtures.ts USERS_31', JSON.stringify(USERS_31)],
  ['fixtures.ts STORE_20', JSON.stringify(STORE_20)],
  ['big-spec.ts bigSpec(3)', JSON.stringify(bigSpec(3))],
];

function follow(doc: JsonObject, v: unknown, at: string): [unknown, string] {
  while (isObject(v) && typeof v['$ref'] === 'string') {
    at = decodeURIComponent(v['$ref'].slice(1));
    v = resolvePointer(doc, v['$ref']);
  }
  return [v, at];
}

interface Case {
  method: string;
  path: string;
  code: string;
  type: string;
  schema: string;
}

/** Every (operation, response, JSON media type) of `doc` with a schema, with the schema's pointer. */
function casesOf(doc: JsonObject): Case[] {
  const out: Case[] = [];
  const swagger = doc['swagger'] === '2.0';
  const paths = isObject(doc['paths']) ? doc['paths'] : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const [item] = follow(doc, rawItem, pointer('paths', path));
    if (!isObject(item)) continue;
    for (const m of METHODS) {
      const op = item[m];
      if (!isObject(op) || !isObject(op['responses'])) continue;
      for (const [code, raw] of Object.entries(op['responses'])) {
        if (code.startsWith('x-')) continue;
        const [r, at] = follow(doc, raw, pointer('paths', path, m, 'responses', code));
        if (!isObject(r)) continue;
        if (swagger) {
          if (r['schema'] === undefined) continue;
          const produces = (op['produces'] ?? doc['produces'] ?? ['application/json']) as string[];
          const type = produces.find((t) => /json/.test(t));
          if (type) out.push({ method: m, path, code, type, schema: `${at}/schema` });
        } else if (isObject(r['content']))
          for (const [type, media] of Object.entries(r['content']))
            if (isObject(media) && media['schema'] !== undefined && /json/.test(type))
              out.push({ method: m, path, code, type, schema: `${at}/content${pointer(type)}/schema` });
      }
    }
  }
  return out;
}

/** A request path for a template: each parameter a plain word. */
function concrete(path: string): string {
  return path.replace(/\{[^}]+\}/g, 'x1');
}

async function checkDocument(app: TestApp, ep: string, text: string): Promise<number> {
  await createEndpoint(app, ep);
  await uploadSpec(app, ep, text, {
    query: '?intelligenceMock=true',
    contentType: text.trimStart().startsWith('{') ? 'application/json' : 'application/yaml',
  });
  const doc = readDocument(text);
  const schemas = new DocumentSchemas(doc, { allErrors: true }, (ajv) => addFormats(ajv));
  let checked = 0;
  for (const c of casesOf(doc)) {
    const code = /^\d{3}$/.test(c.code) ? c.code : /^\dXX$/i.test(c.code) ? `${c.code[0]}00` : '599';
    if (code === '204' || code === '304' || c.method === 'head') continue;
    const validate = schemas.at(c.schema);
    for (let i = 0; i < DRAWS; i++) {
      const res = await hit(app, ep, c.method.toUpperCase(), concrete(c.path), {
        prefer: `code=${code}`,
        accept: c.type,
      });
      const where = `${c.method.toUpperCase()} ${c.path} ${c.code} ${c.type}`;
      assert.equal(String(res.status), code === '599' ? '599' : code, `${where}: ${res.text}`);
      assert.notEqual(res.body, undefined, `${where}: not JSON: ${res.text}`);
      assert.ok(
        validate(res.body),
        `${where}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(res.body, null, 1)}`,
      );
      checked++;
    }
  }
  return checked;
}

test('every generated answer of every document under test (the fixtures corpus) is valid against its schema', async () => {
  const app = await startApp();
  try {
    const counts: Record<string, number> = {};
    let i = 0;
    for (const [name, text] of documents) counts[name] = await checkDocument(app, `corpus${i++}`, text);
    // Each document was checked but those without a JSON response schema: the webhook example has no
    // operations, the examples' ones answer examples only.
    const without = Object.entries(counts)
      .filter(([, n]) => n === 0)
      .map(([name]) => name);
    assert.deepEqual(without, NO_SCHEMAS);
    assert.ok(counts['patterns.yaml']! >= 2 * DRAWS);
  } finally {
    await app.stop();
  }
});

test('patterns: the issue’s time pattern, lookahead left out, unique items, bounds; seen through the mock', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'patterns');
    const text = readFileSync(new URL('patterns.yaml', FIXTURES), 'utf8');
    await uploadSpec(app, 'patterns', text, { query: '?intelligenceMock=true' });
    for (let i = 0; i < 20; i++) {
      const slot = await hit(app, 'patterns', 'GET', '/slots/abc-1234');
      assert.equal(slot.status, 200, slot.text);
      assert.match(slot.body.start, /^([01]\d|2[0-3]):?([0-5]\d)$/);
      assert.match(slot.body.colour, /^#(?:[0-9a-fA-F]{3}){1,2}$/);
      const accounts = await hit(app, 'patterns', 'GET', '/accounts');
      for (const a of accounts.body) {
        assert.match(a.id, /^acct_[a-zA-Z0-9]{16}$/);
        assert.ok(a.key.length >= 23 && a.key.length <= 30, a.key);
        // A lookahead cannot be checked in linear time: the optional property is left out.
        assert.equal(a.ahead, undefined);
      }
    }
  } finally {
    await app.stop();
  }
});

test('dynamic mode: a response with examples and no schema answers its example, not an empty body', async () => {
  const app = await startApp();
  try {
    for (const [ep, file] of [
      ['ex30', 'oai-v3.0-api-with-examples.yaml'],
      ['ex20', 'oai-v2.0-api-with-examples.yaml'],
    ] as const) {
      await createEndpoint(app, ep);
      const text = readFileSync(new URL(file, FIXTURES), 'utf8');
      await uploadSpec(app, ep, text, { query: '?intelligenceMock=true' });
      const res = await hit(app, ep, 'GET', '/', { accept: 'application/json' });
      assert.equal(res.status, 200, res.text);
      // The Swagger 2.0 document's example is JSON text (a YAML string): served as that string.
      const body = typeof res.body === 'string' ? JSON.parse(res.body) : res.body;
      assert.equal(body.versions.length, 2, `${file}: ${res.text}`);
      assert.equal(body.versions[0].id, 'v2.0');
      // The same with Prefer: dynamic=true on a document uploaded without intelligenceMock.
      await uploadSpec(app, ep, text);
      const pref = await hit(app, ep, 'GET', '/', { accept: 'application/json', prefer: 'dynamic=true' });
      const prefBody = typeof pref.body === 'string' ? JSON.parse(pref.body) : pref.body;
      assert.equal(prefBody.versions[1].id, 'v3.0', `${file}: ${pref.text}`);
    }
  } finally {
    await app.stop();
  }
});
