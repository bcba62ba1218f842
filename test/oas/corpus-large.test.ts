/**
 * The large documents of the corpus (test/fixtures/openapi, those of at least corpus.ts's LARGE
 * bytes: Google's Compute Engine API of the APIs.guru directory, 2.3 MB, 359 paths; README there):
 * each uploads, every operation answers, and every response with a JSON schema is asked for once, its
 * body checked with ajv against its schema (corpus.ts). One draw a response, not several, to keep the
 * file within a minute on a loaded machine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp } from '../helpers/app.js';
import { checkDocument, fixtures, type Checked } from './corpus.js';

test('every operation of every large document answers, every generated answer valid against its schema', async () => {
  const large = fixtures(true);
  assert.ok(large.length >= 1, 'the corpus has a large document');
  const app = await startApp();
  try {
    const results: Record<string, Checked> = {};
    let i = 0;
    for (const [name, text] of large) results[name] = await checkDocument(app, `large${i++}`, text, 1);
    const problems = Object.entries(results).flatMap(([name, r]) => r.problems.map((p) => `${name}: ${p}`));
    assert.deepEqual(problems, []);
    for (const [name, r] of Object.entries(results)) {
      assert.ok(r.operations > 100, `${name}: ${r.operations} operations answered`);
      assert.ok(r.bodies > 100, `${name}: ${r.bodies} bodies checked`);
    }
  } finally {
    await app.stop();
  }
});
