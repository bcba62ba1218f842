/**
 * The large documents of the corpus (test/fixtures/openapi, those of at least corpus.ts's LARGE
 * bytes: Google's Compute Engine API of the APIs.guru directory, 2.3 MB, 359 paths, and Amazon's EC2,
 * 3.2 MB, 806 operations told apart by `?Action=`; README there):
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
    for (const [name, r] of Object.entries(results))
      assert.ok(r.operations > 100, `${name}: ${r.operations} operations answered`);
    // Compute Engine answers JSON (typed */*); EC2 answers XML (text/xml): answered, not validated.
    const compute = results['apisguru-v3.0-googleapis.com-compute.yaml'];
    assert.ok(compute && compute.bodies > 100, `Compute Engine: ${compute?.bodies} bodies checked`);
    // EC2's 806 operations, each `/#Action=…` told apart by the query (`/?Action=…`).
    assert.equal(results['apisguru-v3.0-amazonaws.com-ec2.yaml']?.operations, 806);
  } finally {
    await app.stop();
  }
});
