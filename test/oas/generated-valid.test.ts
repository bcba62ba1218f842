/**
 * Every generated answer is valid against its schema (issue 35): each OpenAPI document under
 * test/fixtures/openapi below corpus.ts's LARGE (the OAI examples, documents of the APIs.guru
 * directory, a document of patterns; README there) and the documents of the other OpenAPI tests is
 * uploaded with `intelligenceMock`; every operation answers, and every response of every operation
 * with a JSON schema is asked for several times (`Prefer: code=…`), each body checked with ajv (its
 * formats too) against the schema the document gives it (corpus.ts). corpus-large.test.ts does the
 * same for the large fixtures.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startApp } from '../helpers/app.js';
import { createEndpoint } from '../helpers/api-helpers.js';
import { PETSTORE_30_YAML, STORE_20, USERS_31 } from './fixtures.js';
import { bigSpec } from './big-spec.js';
import { hit, uploadSpec } from './oas-helpers.js';
import { checkDocument, fixtures, FIXTURES, type Checked } from './corpus.js';

/** Answers asked for each response: the generator draws afresh each time. */
const DRAWS = 5;
/** Documents of this many bytes or more (APIs.guru's) are asked fewer times, to keep the file in time. */
const MEDIUM = 100_000;
/** The documents whose operations answer no JSON schema (nothing generated to check). */
const NO_SCHEMAS = [
  'oai-v2.0-api-with-examples.yaml',
  'oai-v3.0-api-with-examples.yaml',
  'oai-v3.1-non-oauth-scopes.json',
  'oai-v3.1-webhook-example.json',
];

const documents: [string, string][] = [
  ...fixtures(false),
  ['fixtures.ts PETSTORE_30_YAML', PETSTORE_30_YAML],
  ['fixtures.ts USERS_31', JSON.stringify(USERS_31)],
  ['fixtures.ts STORE_20', JSON.stringify(STORE_20)],
  ['big-spec.ts bigSpec(3)', JSON.stringify(bigSpec(3))],
];

test('every operation of every document under test (the fixtures corpus) answers, every generated answer valid against its schema', async () => {
  const app = await startApp();
  try {
    const results: Record<string, Checked> = {};
    let i = 0;
    for (const [name, text] of documents)
      results[name] = await checkDocument(app, `corpus${i++}`, text, text.length < MEDIUM ? DRAWS : 1);
    const problems = Object.entries(results).flatMap(([name, r]) => r.problems.map((p) => `${name}: ${p}`));
    assert.deepEqual(problems, []);
    // Each document was checked but those without a JSON response schema: the webhook example has no
    // operations, the examples' ones answer examples only.
    const without = Object.entries(results)
      .filter(([, r]) => r.bodies === 0)
      .map(([name]) => name);
    assert.deepEqual(without, NO_SCHEMAS);
    assert.ok(results['patterns.yaml']!.bodies >= 2 * DRAWS);
    // Every document with operations had them answer: the webhook example alone has none.
    const silent = Object.entries(results)
      .filter(([, r]) => r.operations === 0)
      .map(([name]) => name);
    assert.deepEqual(silent, ['oai-v3.1-webhook-example.json']);
    assert.ok(fixtures(false).length >= 17, 'the corpus has its documents');
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
